"""Spoken table passwords: a number and words, as magic-wormhole prints its codes.

A host that asks for a password without choosing one is offered a generated code such as
``42-guitarist-revenge-hurricane``: easy to read aloud across a room and to type, yet with
`ENTROPY_BITS` (about 30.5) bits of entropy. Together with the host's limit on password guesses
(SPAKE2 lets nobody test guesses offline; see docs/network.md) that is far out of reach of
online guessing during one evening.

The words are the PGP word list (public domain; the list magic-wormhole uses): 256 two-syllable
"even" words and 256 three-syllable "odd" words, two disjoint lists chosen to be told apart
aloud. As in magic-wormhole, a code alternates odd and even words starting with an odd one.

People say and type codes loosely ("42 Guitarist revenge hurricane"), so `canonical` rewrites
anything that looks like a word code to one spelling before it reaches SPAKE2. It must be
applied the same way on both sides (the CLI does it wherever a password is read); any other
password is left exactly as typed.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")

_EVEN = """
aardvark absurd accrue acme adrift adult afflict ahead aimless algol allow alone ammo ancient
apple artist assume athens atlas aztec baboon backfield backward banjo beaming bedlamp beehive
beeswax befriend belfast berserk billiard bison blackjack blockade blowtorch bluebird bombast
bookshelf brackish breadline breakup brickyard briefcase burbank button buzzard cement chairlift
chatter checkup chisel choking chopper christmas clamshell classic classroom cleanup clockwork
cobra commence concert cowbell crackdown cranky crowfoot crucial crumpled crusade cubic
dashboard deadbolt deckhand dogsled dragnet drainage dreadful drifter dropper drumbeat drunken
dupont dwelling eating edict egghead eightball endorse endow enlist erase escape exceed eyeglass
eyetooth facial fallout flagpole flatfoot flytrap fracture framework freedom frighten gazelle
geiger glitter glucose goggles goldfish gremlin guidance hamlet highchair hockey indoors indulge
inverse involve island jawbone keyboard kickoff kiwi klaxon locale lockup merit minnow miser
mohawk mural music necklace neptune newborn nightbird oakland obtuse offload optic orca payday
peachy pheasant physique playhouse pluto preclude prefer preshrunk printer prowler pupil puppy
python quadrant quiver quota ragtime ratchet rebirth reform regain reindeer rematch repay
retouch revenge reward rhythm ribcage ringbolt robust rocker ruffled sailboat sawdust scallion
scenic scorecard scotland seabird select sentence shadow shamrock showgirl skullcap skydive
slingshot slowdown snapline snapshot snowcap snowslide solo southward soybean spaniel spearhead
spellbind spheroid spigot spindle spyglass stagehand stagnate stairway standard stapler
steamship sterling stockman stopwatch stormy sugar surmount suspense sweatband swelter tactics
talon tapeworm tempest tiger tissue tonic topmost tracker transit trauma treadmill trojan
trouble tumor tunnel tycoon uncut unearth unwind uproot upset upshot vapor village virus vulcan
waffle wallet watchword wayside willow woodlark zulu
"""

EVEN_WORDS: tuple[str, ...] = tuple(_EVEN.split())
"""The PGP word list's two-syllable words (byte 0x00 to 0xFF)."""

_ODD = """
adroitness adviser aftermath aggregate alkali almighty amulet amusement antenna applicant apollo
armistice article asteroid atlantic atmosphere autopsy babylon backwater barbecue belowground
bifocals bodyguard bookseller borderline bottomless bradbury bravado brazilian breakaway
burlington businessman butterfat camelot candidate cannonball capricorn caravan caretaker
celebrate cellulose certify chambermaid cherokee chicago clergyman coherence combustion commando
company component concurrent confidence conformist congregate consensus consulting corporate
corrosion councilman crossover crucifix cumbersome customer dakota decadence december decimal
designing detector detergent determine dictator dinosaur direction disable disbelief disruptive
distortion document embezzle enchanting enrollment enterprise equation equipment escapade eskimo
everyday examine existence exodus fascinate filament finicky forever fortitude frequency
gadgetry galveston getaway glossary gossamer graduate gravity guitarist hamburger hamilton
handiwork hazardous headwaters hemisphere hesitate hideaway holiness hurricane hydraulic
impartial impetus inception indigo inertia infancy inferno informant insincere insurgent
integrate intention inventive istanbul jamaica jupiter leprosy letterhead liberty maritime
matchmaker maverick medusa megaton microscope microwave midsummer millionaire miracle misnomer
molasses molecule montana monument mosquito narrative nebula newsletter norwegian october ohio
onlooker opulent orlando outfielder pacific pandemic pandora paperweight paragon paragraph
paramount passenger pedigree pegasus penetrate perceptive performance pharmacy phonetic
photograph pioneer pocketful politeness positive potato processor provincial proximate puberty
publisher pyramid quantity racketeer rebellion recipe recover repellent replica reproduce
resistor responsive retraction retrieval retrospect revenue revival revolver sandalwood sardonic
saturday savagery scavenger sensation sociable souvenir specialist speculate stethoscope
stupendous supportive surrender suspicious sympathy tambourine telephone therapist tobacco
tolerance tomorrow torpedo tradition travesty trombonist truncated typewriter ultimate undaunted
underfoot unicorn unify universe unravel upcoming vacancy vagabond vertigo virginia visitor
vocalist voyager warranty waterloo whimsical wichita wilmington wyoming yesteryear yucatan
"""

ODD_WORDS: tuple[str, ...] = tuple(_ODD.split())
"""The PGP word list's three-syllable words (byte 0x00 to 0xFF)."""

WORDS = frozenset(EVEN_WORDS) | frozenset(ODD_WORDS)

WORD_COUNT = 3
"""Words in a generated code."""

NUMBERS = range(10, 100)
"""The leading number: always two digits, so every code has the same shape."""

ENTROPY_BITS = math.log2(len(NUMBERS)) + WORD_COUNT * math.log2(len(EVEN_WORDS))
"""Bits of entropy of a generated code: log2(90) + 3 x 8, about 30.5."""

_SEPARATORS = re.compile(r"[\s\-_.,;:/]+")


class Chooser(Protocol):
    """What `generate` draws from: the `secrets` module, or a seeded `random.Random` in tests."""

    def choice(self, seq: Sequence[T], /) -> T: ...


def generate(rng: Chooser = secrets) -> str:
    """A fresh code such as ``42-guitarist-revenge-hurricane`` (odd, even, odd words)."""
    number = rng.choice(NUMBERS)
    words = [rng.choice(ODD_WORDS if i % 2 == 0 else EVEN_WORDS) for i in range(WORD_COUNT)]
    return "-".join([str(number), *words])


def normalise(text: str) -> str:
    """`text` in one spelling: lower case, any run of spaces, hyphens, underscores, dots, commas,
    colons or slashes turned into one hyphen, none at either end, and leading zeros dropped from a
    leading number. Used on word codes only (see `canonical`)."""
    parts = [p for p in _SEPARATORS.split(text.strip().casefold()) if p]
    if parts and parts[0].isascii() and parts[0].isdigit():
        parts[0] = str(int(parts[0]))
    return "-".join(parts)


def looks_like_code(text: str) -> bool:
    """True when `text` is a number followed by one or more words of the list, however it is
    spaced or capitalised: then `canonical` rewrites it."""
    parts = normalise(text).split("-")
    return (
        len(parts) >= 2
        and parts[0].isascii()
        and parts[0].isdigit()
        and all(word in WORDS for word in parts[1:])
    )


def canonical(password: str) -> str:
    """The password as it goes into SPAKE2: a word code in its one spelling, anything else
    unchanged (a password someone chose is theirs to the letter)."""
    return normalise(password) if looks_like_code(password) else password
