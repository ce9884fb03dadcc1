"""End-to-end tests: every scenario each seed documents, through the generated modules."""
