"""The model's tools (SPEC 5) and the workspace guard they all go through (SPEC 13).

``base`` defines what a tool is, ``guard`` where it may reach, ``registry`` which tools a session offers; each
other module is one tool (``list_dir`` holds the tool named "list"). Import from the modules themselves: this
package file stays empty so that importing one tool never drags in the others.
"""
