"""The corpus builder: synthetic talkers, Libri2Mix-style mixing, rooms, noise, RSA-Bench scenes, AMI clips."""
