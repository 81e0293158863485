"""A terminal that goes away without a hangup signal ends the app (it used to spin a core for as long as it lived).

A closed pty reads as end of file; a program that is not its session's leader (started by a wrapper, a multiplexer
that lost its server) gets no SIGHUP for it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from coder_tui.input.input_driver import PromptEscapeDriver

REPO = Path(__file__).resolve().parents[2]


def test_the_input_thread_raises_the_hangup_when_its_input_ends() -> None:
    read_end, write_end = os.pipe()
    os.close(write_end)
    ended = threading.Event()
    driver = PromptEscapeDriver.__new__(PromptEscapeDriver)
    driver.fileno = read_end
    driver._debug = False
    driver.exit_event = threading.Event()
    driver.input_ended = ended.set  # type: ignore[method-assign]
    driver.process_message = lambda message: None  # type: ignore[method-assign]
    thread = threading.Thread(target=driver.run_input_thread, daemon=True)
    try:
        thread.start()
        thread.join(timeout=10)
        still_reading = thread.is_alive()
    finally:
        driver.exit_event.set()
        thread.join(timeout=10)
        os.close(read_end)
    assert ended.is_set()
    assert not still_reading


def test_coder_tui_exits_when_its_pty_closes_without_a_hangup(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ, "TERM": "xterm-256color", "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-test", "CODER_MODEL": "scripted-model",
        "PYTHONPATH": str(REPO),
    }
    # Not made a session leader (no setsid), so closing the pty sends the program no SIGHUP.
    project = tmp_path / "project"  # tmp_path is above the home folder, never a workspace
    project.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "coder_tui", "--cwd", str(project)],
        stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
    )
    os.close(slave)
    try:
        drawn = b""
        deadline = time.monotonic() + 60
        while b"scripted-model" not in drawn and time.monotonic() < deadline:  # the first frame is drawn
            if select.select([master], [], [], 1.0)[0]:
                drawn += os.read(master, 65536)
        os.close(master)
        assert process.wait(timeout=60) == 128 + signal.SIGHUP
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
