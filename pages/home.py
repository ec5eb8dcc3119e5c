"""Home: what Groundwork is and the kinds of data it reads, the dataset in use, and where each kind
of user starts, in the words of the dataset's domain (components.home)."""

from components import home
from components.dataset import require_any

home.show(require_any("Groundwork"))
