import os

os.environ.setdefault("ACOUSTICLAIM_NO_PROGRESS", "1")
