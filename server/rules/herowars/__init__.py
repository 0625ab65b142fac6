"""The Hero Wars extended contest variant (seed 001): winner table × loser table."""
