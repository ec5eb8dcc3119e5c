"""A process's peak resident memory, as the benchmarks report it."""

from __future__ import annotations

import resource


def peak_mb() -> float:
    """This process's peak resident memory in MB: the kernel's high-water mark of the process's own
    memory (``VmHWM``). ``ru_maxrss`` is not that: after a fork and exec it keeps the parent's peak,
    so a benchmark child started by a large process (a bench run that had opened Compare on 10 runs
    x 100,000 predictions) reported 3.7 GB for a load of 0.5 GB."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:  # not Linux
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
