"""The benchmark: how much a plan costs next to the floor of reading and writing its JSON."""
