"""SPEC 5 patch(patch): reading both dialects, the unified diff and the '*** Begin Patch' format, into one model."""

from __future__ import annotations

import pytest

from engine.tools.patch_parse import ChangeKind, PatchSyntaxError, parse_patch, touched_paths
from engine.tools.patch_parse.envelope import unwrap


def test_apply_format_reads_every_kind_of_change() -> None:
    changes = parse_patch(
        "*** Begin Patch\n"
        "*** Add File: docs/new.md\n+# New\n+\n+text\n"
        "*** Delete File: old.txt\n"
        "*** Update File: src/a.py\n*** Move to: src/b.py\n"
        "@@ class A:\n@@     def f(self):\n-        pass\n+        return 1\n"
        "*** End Patch\n"
    )
    add, delete, update = changes
    assert (add.kind, add.path, add.content) == (ChangeKind.ADD, "docs/new.md", "# New\n\ntext\n")
    assert (delete.kind, delete.path) == (ChangeKind.DELETE, "old.txt")
    assert (update.kind, update.path, update.move_to) == (ChangeKind.UPDATE, "src/a.py", "src/b.py")
    (hunk,) = update.hunks
    assert [anchor.text for anchor in hunk.anchors] == ["class A:", "def f(self):"]
    assert [anchor.patch_line for anchor in hunk.anchors] == [9, 10]
    assert hunk.old_lines == ["        pass"] and hunk.new_lines == ["        return 1"]
    assert touched_paths("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Delete File: c\n*** End Patch") == [
        "a -> b",
        "c",
    ]


def test_apply_format_first_chunk_may_omit_its_header_and_end_of_file_anchors_at_the_end() -> None:
    (change,) = parse_patch(
        "*** Begin Patch\n*** Update File: a.py\n import os\n+import sys\n*** End of File\n*** End Patch"
    )
    (hunk,) = change.hunks
    assert hunk.header == "" and hunk.at_end
    assert hunk.old_lines == ["import os"] and hunk.new_lines == ["import os", "import sys"]


def test_apply_format_empty_lines_are_context_inside_a_chunk_and_separators_at_its_edges() -> None:
    (change,) = parse_patch(
        "*** Begin Patch\n*** Update File: a.py\n@@\n\n a\n\n-b\n\n@@\n-c\n+d\n\n*** End Patch"
    )
    first, second = change.hunks
    assert first.old_lines == ["a", "", "b"] and first.new_lines == ["a", ""]
    assert second.old_lines == ["c"] and second.new_lines == ["d"]


def test_apply_format_numbered_header_is_a_line_hint() -> None:
    (change,) = parse_patch("*** Begin Patch\n*** Update File: a.py\n@@ -12,3 +12,3 @@\n-x\n+y\n*** End Patch")
    (hunk,) = change.hunks
    assert hunk.old_start == 12 and hunk.anchors == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("*** Update File: a\n-x\n+y\n*** End Patch", "patch line 1: the first line must be '*** Begin Patch'"),
        ("*** Begin Patch\n*** Update File: a\n-x\n+y", "patch line 4: the last line must be '*** End Patch'"),
        ("*** Begin Patch\n*** Update File: a\n-x\nboom\n*** End Patch", "patch line 4: unexpected line"),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", "patch line 2: '*** Update File: a' has no changes"),
        ("*** Begin Patch\n*** Add File:\n+x\n*** End Patch", "patch line 2: *** Add File needs a path"),
        ("*** Begin Patch\n*** Add File: a\nx\n*** End Patch", "must start with '+'"),
        ("*** Begin Patch\n*** Update File: a\n@@ def f():\n*** End Patch", "a chunk of the update of a has no lines"),
        ("", "the patch is empty"),
        ("hello", "neither a unified diff"),
    ],
)
def test_malformed_patches_name_the_patch_line(text: str, message: str) -> None:
    with pytest.raises(PatchSyntaxError, match="invalid patch: ") as error:
        parse_patch(text)
    assert message in str(error.value)


def test_unified_git_diff_with_new_deleted_and_renamed_files() -> None:
    changes = parse_patch(
        "diff --git a/new.py b/new.py\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/new.py\n"
        "@@ -0,0 +1,2 @@\n+a\n+b\n"
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
        "diff --git a/old.py b/new/place.py\nsimilarity index 88%\nrename from old.py\nrename to new/place.py\n"
        "--- a/old.py\n+++ b/new/place.py\n@@ -3,2 +3,2 @@ def f():\n     x = 1\n-    y = 2\n+    y = 3\n"
    )
    added, deleted, renamed = changes
    assert (added.kind, added.path, added.content) == (ChangeKind.ADD, "new.py", "a\nb\n")
    assert (deleted.kind, deleted.path) == (ChangeKind.DELETE, "gone.py")
    assert (renamed.kind, renamed.path, renamed.move_to) == (ChangeKind.UPDATE, "old.py", "new/place.py")
    (hunk,) = renamed.hunks
    assert hunk.header == "@@ -3,2 +3,2 @@ def f():" and hunk.old_start == 3 and hunk.patch_line == 21


def test_unified_no_newline_markers_belong_to_their_side() -> None:
    (change,) = parse_patch("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n")
    (hunk,) = change.hunks
    assert hunk.old_missing_newline and hunk.at_end and not hunk.new_missing_newline
    (change,) = parse_patch("--- a/f\n+++ b/f\n@@ -1 +1 @@\n a\n\\ No newline at end of file\n")
    (hunk,) = change.hunks
    assert hunk.old_missing_newline and hunk.new_missing_newline


def test_unified_counts_say_where_a_hunk_ends_so_header_lookalikes_stay_content() -> None:
    (change,) = parse_patch("--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n x\n")
    (hunk,) = change.hunks
    assert hunk.old_lines == ["-- old comment", "x"] and hunk.new_lines == ["++ new comment", "x"]


def test_unified_hunk_with_too_small_counts_keeps_its_remaining_lines() -> None:
    (change,) = parse_patch("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n")
    assert change.hunks[0].old_lines == ["a", "b", "d"]


def test_unified_blank_context_line_without_its_space() -> None:
    first, second = parse_patch("--- a/f\n+++ b/f\n@@\n a\n\n-b\n+c\n\n--- a/g\n+++ b/g\n@@\n-x\n+y\n")
    assert first.hunks[0].old_lines == ["a", "", "b"] and first.hunks[0].new_lines == ["a", "", "c"]
    assert second.path == "g" and second.hunks[0].old_lines == ["x"]


def test_unified_plain_paths_keep_their_timestamps_out_and_offer_alternates() -> None:
    (change,) = parse_patch(
        "--- proj.orig/src/a.py\t2024-01-01 10:00\n+++ proj/src/a.py\t2024-01-02 10:00\n@@\n-x\n+y\n"
    )
    assert change.path == "proj/src/a.py"
    assert change.alternate_paths == ("proj.orig/src/a.py", "src/a.py")


def test_unified_git_quoted_paths_are_unquoted() -> None:
    (change,) = parse_patch('--- "a/caf\\303\\251.txt"\n+++ "b/caf\\303\\251.txt"\n@@ -1 +1 @@\n-x\n+y\n')
    assert change.path == "café.txt"


def test_unified_ignores_a_commit_preamble_and_the_format_patch_signature() -> None:
    (change,) = parse_patch("Subject: fix\n\n---\n f | 2 +-\n\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n-- \n2.43.0\n")
    assert change.hunks[0].old_lines == ["x"] and change.hunks[0].new_lines == ["y"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("diff --git a/x b/x\nBinary files a/x and b/x differ\n", "binary patches are not supported"),
        ("diff --git a/x b/y\ncopy from x\ncopy to y\n", "copies"),
        ("--- a/f\n+++ b/f\n", "the diff of f has no hunks"),
        ("@@ -1 +1 @@\n-a\n+b\n", "a hunk comes before any"),
    ],
)
def test_unified_unsupported_or_broken_diffs_are_refused(text: str, message: str) -> None:
    with pytest.raises(PatchSyntaxError) as error:
        parse_patch(text)
    assert message in str(error.value)


@pytest.mark.parametrize(
    "wrapped",
    [
        "<<'EOF'\n{patch}\nEOF",
        '<<"EOF"\n{patch}\nEOF\n',
        "apply_patch <<'PATCH'\n{patch}\nPATCH",
        "```diff\n{patch}\n```",
        "```bash\napply_patch <<EOF\n{patch}\nEOF\n```",
        "\n\n{patch}\n\n",
    ],
)
def test_wrappers_are_stripped_and_line_numbers_stay_those_of_the_text_sent(wrapped: str) -> None:
    patch = "*** Begin Patch\n*** Update File: a\n-x\nboom\n*** End Patch"
    text = wrapped.format(patch=patch)
    body = unwrap(text)
    assert body.lines == patch.split("\n")
    boom_line = text.split("\n").index("boom") + 1
    with pytest.raises(PatchSyntaxError, match=f"patch line {boom_line}: unexpected line"):
        parse_patch(text)


def test_touched_paths_of_an_unreadable_patch_is_empty() -> None:
    assert touched_paths("not a patch") == []
