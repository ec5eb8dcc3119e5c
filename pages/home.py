"""Home: what Groundwork is, the dataset in use, and where each kind of user starts (for Map Task
sessions, kitchen runs or a benchmark)."""

from components import home
from components.dataset import require_any, synthetic_banner
from corpus.benchmark import Benchmark
from corpus.kitchen_dataset import KitchenCorpus
from services.home import facts

data = require_any("Groundwork")
if isinstance(data, KitchenCorpus):
    home.kitchen_introduction()
    home.kitchen_in_use(data)
    synthetic_banner(data)
    home.kitchen_entries(data)
elif isinstance(data, Benchmark):
    home.benchmark_introduction()
    home.benchmark_in_use(data)
    synthetic_banner(data)
    home.benchmark_entries()
else:
    home.introduction()
    home.dataset_in_use(data, facts(data))
    synthetic_banner(data)
    home.entries(facts(data))
