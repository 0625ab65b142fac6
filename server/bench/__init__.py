"""`agon bench`: measure Agon from outside, next to a floor and a peer measured in the same run.

Each scenario starts its own servers on loopback (``agon serve`` processes, a throwaway redis-server,
the floor — a minimal ``websockets`` broadcast server sending the same frames — and, for *peer*,
boardgame.io), drives them with the same shape of load, and prints tables of medians over interleaved
rounds. ``table-night --mix`` plays full rounds of every ruleset (``rounds/``: a module per ruleset;
``mix``: the loop; ``tablemix``: the scenario; ``recording``: the frames the floor replays) next to the
adjust-only load. Benchmarks live here, apart from the tests; the suite runs a smoke pass with tiny sizes.
"""
