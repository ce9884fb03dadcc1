"""Runtime tests: hand-built specs, no generator involved."""
