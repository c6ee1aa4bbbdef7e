"""skipbo on the screen: its table model, its drawing and its `GameScreen`."""
