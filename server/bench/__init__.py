"""`agon bench`: measure Agon from outside, next to a floor and a peer measured in the same run.

Each scenario starts its own servers on loopback (``agon serve`` processes, a throwaway redis-server,
the floor — a minimal ``websockets`` broadcast server sending the same frames — and, for *peer*,
boardgame.io), drives them with the same shape of load, and prints tables of medians over interleaved
rounds. Benchmarks live here, apart from the tests; the suite runs a smoke pass with tiny sizes.
"""
