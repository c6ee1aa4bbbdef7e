"""The game-independent core: moves, events, errors, state, options, the dealer and the RNG."""
