"""protocol: the agreement layer of skyjo-lan (wire messages, transcript, mental-poker deck, proofs)."""
