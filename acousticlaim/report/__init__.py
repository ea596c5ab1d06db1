"""AcoustiClaim report."""
