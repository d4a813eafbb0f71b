"""The ladder on the web: pages over the store's reads, and the replay viewer."""
