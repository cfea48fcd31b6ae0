"""A throw-away single-node SLURM cluster on localhost, for the SLURM tests.

`SlurmCluster(workdir).start()` installs SLURM and munge with apt-get where they are missing,
writes a slurm.conf (two partitions, `cpu` and `gpu`, named like the placeholders of the
`slurm/` profile, and one fake GPU as a generic resource without a device file, so that
`--gpus=1` jobs are scheduled on a CPU-only machine), starts munged, slurmctld and slurmd, and
waits until the node is idle. `stop()` ends exactly the daemons it started, by their pids, and
puts back whatever it replaced under /etc/slurm.

Raises `ClusterUnavailable` (the tests turn it into a skip) when it cannot work here: not root,
apt-get fails, or another SLURM cluster holds the ports.

Also usable by hand: `python tests/slurm_cluster.py start DIR` / `... stop DIR`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PACKAGES = ["slurmctld", "slurmd", "slurm-client", "munge"]
BINARIES = ["sbatch", "squeue", "sinfo", "slurmctld", "slurmd", "munged", "munge", "unmunge"]
PORTS = (6817, 6818)  # slurmctld, slurmd
ETC = Path("/etc/slurm")  # the plugin's job steps drop SLURM_CONF, so the conf must live here
MUNGE_PID = Path("/run/munge/munged.pid")
PARTITIONS = ("cpu", "gpu")

SLURM_CONF = """\
ClusterName=genplan-ci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
GresTypes=gpu
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/run/slurmctld.pid
SlurmdPidFile={d}/run/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# finished jobs stay visible to squeue for 10 minutes (the plugin's squeue status needs >= 3 x
# its initial status interval)
MinJobAge=600
SchedulerParameters=sched_interval=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem} Gres=gpu:1 State=UNKNOWN
PartitionName=cpu Nodes=localhost Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=localhost MaxTime=INFINITE State=UP
"""

GRES_CONF = "NodeName=localhost Name=gpu File=/dev/null\n"


class ClusterUnavailable(RuntimeError):
    """SLURM cannot be installed or started on this machine."""


def _run(cmd: list[str], timeout: float = 60, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def _link_folder(link: Path) -> Path:
    """The folder a symbolic link points into (a relative link is relative to its own folder)."""
    return (link.parent / os.readlink(link)).parent


def _leftover(target: Path) -> bool:
    """Whether an /etc/slurm file is a link left by an earlier SlurmCluster rather than the machine's own
    configuration: a link into a folder that holds that cluster's state file `cluster.json`, or into a
    `slurm-cluster*` folder of a pytest temporary directory that pytest has since deleted."""
    if not target.is_symlink():
        return False
    folder = _link_folder(target)
    if (folder / "cluster.json").is_file():
        return True
    return not folder.exists() and folder.name.startswith("slurm-cluster") and "pytest-of-" in str(folder)


def _restore_backup_of(target: Path) -> None:
    """Unlink a leftover link and move back what its cluster had set aside there (its `cluster.json`
    names the backup of the machine's own file), so that the machine's configuration is not lost."""
    folder = _link_folder(target)
    target.unlink()
    try:
        backup = json.loads((folder / "cluster.json").read_text())["replaced"].get(target.name, "")
    except (OSError, ValueError, KeyError, AttributeError):
        return
    if backup and Path(backup).exists():
        shutil.move(backup, str(target))


def _port_in_use(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _munge_works() -> bool:
    try:
        enc = _run(["munge", "-n"], timeout=10)
        return enc.returncode == 0 and _run(["unmunge"], input=enc.stdout, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _wait(predicate, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.3)
    raise ClusterUnavailable(f"timed out after {timeout:.0f} s waiting for {what}")


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie still answers kill(0); treat it as gone
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _terminate(pid: int, timeout: float = 10) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    end = time.monotonic() + timeout
    while time.monotonic() < end and _alive(pid):
        time.sleep(0.1)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


def ensure_installed() -> None:
    """apt-get install SLURM and munge if a binary is missing (root only)."""
    missing = [b for b in BINARIES if shutil.which(b) is None]
    if not missing:
        return
    if os.geteuid() != 0:
        raise ClusterUnavailable(f"SLURM is not installed ({', '.join(missing)} missing) and we are not root")
    if shutil.which("apt-get") is None:
        raise ClusterUnavailable(f"SLURM is not installed ({', '.join(missing)} missing) and there is no apt-get")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *PACKAGES]
    try:
        res = _run(cmd, timeout=600, env=env)
        if res.returncode != 0:
            _run(["apt-get", "update"], timeout=300, env=env)
            res = _run(cmd, timeout=600, env=env)
    except subprocess.TimeoutExpired:
        raise ClusterUnavailable("apt-get install of SLURM timed out") from None
    if res.returncode != 0:
        raise ClusterUnavailable(f"apt-get install {' '.join(PACKAGES)} failed: {res.stderr.strip()[-500:]}")


class SlurmCluster:
    """One slurmctld + one slurmd on localhost, configured from files under `workdir`."""

    def __init__(self, workdir: Path, cpus: int | None = None):
        self.dir = Path(workdir).resolve()
        self.cpus = cpus or os.cpu_count() or 1
        self.started: dict[str, int] = {}  # daemon name -> pid, only those we started
        self.replaced: dict[str, str] = {}  # /etc/slurm file -> backup path ("" = created by us)

    @property
    def conf(self) -> Path:
        return self.dir / "slurm.conf"

    def _state_file(self) -> Path:
        return self.dir / "cluster.json"

    def start(self) -> "SlurmCluster":
        ensure_installed()
        if os.geteuid() != 0:
            raise ClusterUnavailable("starting slurmctld/slurmd as configured here needs root")
        busy = [p for p in PORTS if _port_in_use(p)]
        if busy:
            raise ClusterUnavailable(f"ports {busy} are in use: another SLURM cluster runs on this machine")
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        for sub in ("state", "spool", "run", "log"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        mem = max(1024, (os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 2**20 - 1024)
        self.conf.write_text(SLURM_CONF.format(d=self.dir, cpus=self.cpus, mem=mem))
        (self.dir / "gres.conf").write_text(GRES_CONF)
        ETC.mkdir(parents=True, exist_ok=True)
        for name in ("slurm.conf", "gres.conf"):
            target = ETC / name
            if _leftover(target):
                # a link into the folder of an earlier cluster of this class that was killed before it
                # could restore /etc/slurm: kept, it would make every later `scontrol` (and so every
                # snakemake start: the SLURM plugin asks `scontrol show config` at import) wait 9-10 s
                # for a controller that is gone
                _restore_backup_of(target)
            if target.exists() or target.is_symlink():
                backup = self.dir / f"{name}.orig"
                shutil.move(str(target), str(backup))
                self.replaced[name] = str(backup)
            else:
                self.replaced[name] = ""
            target.symlink_to(self.dir / name)
        self._save()

        if not _munge_works():
            run_dir = Path("/run/munge")
            run_dir.mkdir(parents=True, exist_ok=True)
            shutil.chown(run_dir, "munge", "munge")
            res = _run(["runuser", "-u", "munge", "--", "/usr/sbin/munged"], timeout=30)
            if res.returncode != 0:
                raise ClusterUnavailable(f"munged did not start: {res.stderr.strip()}")
            _wait(lambda: MUNGE_PID.exists(), 10, "munged's pid file")
            self.started["munged"] = _read_pid(MUNGE_PID)
            self._save()
            _wait(_munge_works, 20, "munge to answer")

        env = dict(os.environ, SLURM_CONF=str(ETC / "slurm.conf"))
        for name, cmd in (("slurmctld", ["slurmctld", "-i"]), ("slurmd", ["slurmd", "-N", "localhost"])):
            res = _run(cmd, timeout=30, env=env)
            if res.returncode != 0:
                raise ClusterUnavailable(f"{name} did not start: {res.stderr.strip()} (see {self.dir}/log)")
            pid_file = self.dir / "run" / f"{name}.pid"
            _wait(lambda: _read_pid(pid_file) is not None, 15, f"{name}'s pid file")
            self.started[name] = _read_pid(pid_file)
            self._save()

        def idle() -> bool:
            res = _run(["sinfo", "-h", "-N", "-o", "%T"], timeout=10, env=env)
            return res.returncode == 0 and res.stdout.split() and all(
                s.rstrip("*") == "idle" for s in res.stdout.split())

        _wait(idle, 60, f"the node to be idle (see {self.dir}/log)")

    def _save(self) -> None:
        self._state_file().write_text(json.dumps({"started": self.started, "replaced": self.replaced}))

    @classmethod
    def attach(cls, workdir: Path) -> "SlurmCluster":
        """The cluster that `start` left described in workdir (for `stop` from another process)."""
        c = cls(workdir)
        state = json.loads(c._state_file().read_text())
        c.started, c.replaced = state["started"], state["replaced"]
        return c

    def stop(self) -> None:
        """End the daemons this object started (slurmd, slurmctld, munged), by pid; restore /etc/slurm."""
        for name in ("slurmd", "slurmctld", "munged"):
            pid = self.started.pop(name, None)
            if pid:
                _terminate(pid)
        for name, backup in self.replaced.items():
            target = ETC / name
            if target.is_symlink() and Path(os.readlink(target)) == self.dir / name:
                target.unlink()
            if backup:
                shutil.move(backup, str(target))
        self.replaced = {}
        if self.dir.exists():
            self._save()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python tests/slurm_cluster.py start|stop DIR", file=sys.stderr)
        return 2
    if argv[0] == "start":
        try:
            SlurmCluster(Path(argv[1])).start()
        except ClusterUnavailable as exc:
            print(f"no cluster: {exc}", file=sys.stderr)
            return 1
        print(f"SLURM cluster up; configuration {ETC / 'slurm.conf'} -> {Path(argv[1]).resolve()}/slurm.conf")
    else:
        SlurmCluster.attach(Path(argv[1])).stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
