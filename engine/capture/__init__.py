"""The workspace capture (SPEC 7): the content store and index that let any tool call's changes be put back."""
