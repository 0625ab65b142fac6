"""Below the sockets, beside the service: each contest's live feed — tailing its stream in the store, folding
each record in, building each sight's view and patch once per stored batch, and keeping the resume ring — and the
registry that starts a feed on its first follower and stops it a while after its last.

``server.net`` sends what a feed publishes; nothing here knows a socket.
"""
