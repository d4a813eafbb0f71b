import sys

from niwa.cli import main

sys.exit(main())
