import sys

from coder_tui.cli import main

sys.exit(main())
