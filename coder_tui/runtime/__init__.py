"""How the app runs: work between keys, the collector's pacing, Textual fixes, calling the user back."""
