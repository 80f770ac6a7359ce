import sys

from fsmarena.cli import main

sys.exit(main())
