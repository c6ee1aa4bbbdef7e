"""client: the program a person runs (CLI, network, terminal UI). Everything with I/O lives here."""
