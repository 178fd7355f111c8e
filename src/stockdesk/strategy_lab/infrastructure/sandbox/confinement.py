"""What confines a strategy child beyond the allowlist: its resource limits, user, namespaces, seccomp.

Strategy code is rendered from templates and checked, but the sandbox must hold even when that check
is bypassed, so each child the worker forks confines itself before the strategy runs, in this order
(each step needs what the ones before it still allow):

1. directory: a fresh empty directory of its own as the working directory (created by the worker's
   user, handed to the child's uid, removed by the worker when the child ends);
2. limits: CPU time, address space, no file writes (RLIMIT_FSIZE 0), only its four descriptors
   (RLIMIT_NOFILE), one process (RLIMIT_NPROC 1: no fork, no thread, so no fork bomb);
3. namespaces: a network namespace of its own (no interface but a loopback that is down) and an IPC
   namespace (no System V object of the host, none left behind); a child that is not root first
   enters a user namespace of its own, which lets it create the other two;
4. user: a worker running as root hands each child a uid and gid no account uses (UID_BASE + its
   pid) with no groups, so it owns no file and can signal, trace or read the /proc files of no other
   process (in a container whose user namespace does not map that uid: nobody, 65534, shared by
   concurrent strategies); every child is also made non-dumpable (its /proc files and memory closed
   to others);
5. no_new_privs: no exec can gain privileges (and a seccomp filter may be set without root);
6. seccomp: a filter (classic BPF, built below) that refuses with EPERM the system calls that reach
   outside without a descriptor: sockets, signals, ptrace and other processes' memory, opening or
   changing a file by name, exec, io_uring (whose operations bypass the filter) and namespaces.

A step the kernel refuses (namespaces, seccomp) is reported as a missing layer and the others still
apply; a child of a root worker that cannot leave root never runs the strategy (the worker checks
`refused`). The worker tries all of this once in a probe child at start-up (`stockdesk doctor` asks
the same way, see sandbox_layers) and requires every layer the probe got from every later child.

Loaded by path in the worker (`python -I worker.py`), so only the standard library is imported here.
The filter is a denylist: a system call added to Linux later is allowed until it is listed here.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import struct
from collections.abc import Collection
from dataclasses import dataclass

UID_BASE = 0x71000000  # + the child's pid: above the ranges distributions and systemd hand out
NOBODY = 65534  # where UID_BASE + pid is not mapped (a container's user namespace)
MIB = 1024 * 1024
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWNET = 0x08000000, 0x10000000, 0x40000000
PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS = 4, 22, 38
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06  # classic BPF opcodes
NR_OFFSET, ARCH_OFFSET = 0, 4  # in struct seccomp_data
X32_SYSCALL_BIT = 0x40000000  # x86_64's x32 ABI: the same calls under other numbers
# platform.machine() -> (AUDIT_ARCH_* of seccomp_data.arch, column of DENIED)
ARCHES = {"x86_64": (0xC000003E, 1), "aarch64": (0xC00000B7, 2)}
# (name, x86_64 number, aarch64 number or None where only the *at form exists): the filter's denylist
DENIED: tuple[tuple[str, int, int | None], ...] = (
    # the network: no socket can be made (the only descriptors are /dev/null and the result pipe)
    ("socket", 41, 198),
    ("socketpair", 53, 199),
    ("connect", 42, 203),
    ("bind", 49, 200),
    # signals to any process (the kernel's own SIGXCPU still arrives)
    ("kill", 62, 129),
    ("tkill", 200, 130),
    ("tgkill", 234, 131),
    ("rt_sigqueueinfo", 129, 138),
    ("rt_tgsigqueueinfo", 297, 240),
    ("pidfd_open", 434, 434),
    ("pidfd_send_signal", 424, 424),
    ("pidfd_getfd", 438, 438),
    # other processes' memory
    ("ptrace", 101, 117),
    ("process_vm_readv", 310, 270),
    ("process_vm_writev", 311, 271),
    # opening a file by name (the worker preloads what the templates need; nothing is opened later)
    ("open", 2, None),
    ("openat", 257, 56),
    ("openat2", 437, 437),
    ("creat", 85, None),
    ("open_by_handle_at", 304, 265),
    # changing a file by name, which needs no descriptor
    ("unlink", 87, None),
    ("unlinkat", 263, 35),
    ("rmdir", 84, None),
    ("rename", 82, None),
    ("renameat", 264, 38),
    ("renameat2", 316, 276),
    ("link", 86, None),
    ("linkat", 265, 37),
    ("symlink", 88, None),
    ("symlinkat", 266, 36),
    ("mkdir", 83, None),
    ("mkdirat", 258, 34),
    ("mknod", 133, None),
    ("mknodat", 259, 33),
    ("truncate", 76, 45),
    ("chmod", 90, None),
    ("fchmodat", 268, 53),
    ("fchmodat2", 452, 452),
    ("chown", 92, None),
    ("lchown", 94, None),
    ("fchownat", 260, 54),
    ("utime", 132, None),
    ("utimes", 235, None),
    ("futimesat", 261, None),
    ("utimensat", 280, 88),
    ("setxattr", 188, 5),
    ("lsetxattr", 189, 6),
    ("removexattr", 197, 14),
    ("lremovexattr", 198, 15),
    ("setxattrat", 463, 463),
    ("removexattrat", 466, 466),
    # another program, other namespaces, io_uring
    ("execve", 59, 221),
    ("execveat", 322, 281),
    ("unshare", 272, 97),
    ("setns", 308, 268),
    ("io_uring_setup", 425, 425),
    ("io_uring_enter", 426, 426),
    ("io_uring_register", 427, 427),
)


@dataclass(frozen=True)
class Layer:
    """One step's outcome, sent to the parent as JSON (layers.SandboxLayer there)."""

    name: str
    active: bool
    detail: str


def seccomp_filter(machine: str) -> bytes | None:
    """The filter program (struct sock_filter[]) for `machine`, None for an architecture not in ARCHES.

    A call under another ABI (i386 on x86_64, arm32 on aarch64) or x32 numbers is refused whole: the
    numbers below would not name the same calls there.
    """
    if machine not in ARCHES:
        return None
    arch, column = ARCHES[machine]
    numbers = sorted({row[column] for row in DENIED if row[column] is not None})
    checks = [(BPF_JGE_K, X32_SYSCALL_BIT)] if machine == "x86_64" else []
    checks += [(BPF_JEQ_K, number) for number in numbers]
    deny = 3 + len(checks) + 1  # index of the last instruction
    program = [
        (BPF_LD_W_ABS, 0, 0, ARCH_OFFSET),
        (BPF_JEQ_K, 0, deny - 2, arch),
        (BPF_LD_W_ABS, 0, 0, NR_OFFSET),
    ]
    for opcode, value in checks:  # jumps are relative to the next instruction
        program.append((opcode, deny - len(program) - 1, 0, value))
    program += [(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW), (BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM)]
    assert deny < 256 and len(program) == deny + 1  # jump offsets are one byte
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Confinement:
    """Prepared once in the worker (libc, the filter in memory), applied in each child after fork."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)  # the interpreter's own libc: no file to open
        self._root = os.geteuid() == 0
        self._server_uid = os.getuid()
        self._mapped = _mapped_uids()
        self._fprog: _SockFprog | None = None
        program = seccomp_filter(platform.machine())
        if program is not None:  # the buffer lives as long as the worker, so in every child
            self._filter = ctypes.create_string_buffer(program, len(program))
            self._fprog = _SockFprog(len(program) // 8, ctypes.addressof(self._filter))

    def apply(self, cpu_seconds: int, memory_mb: int, descriptors: int) -> list[Layer]:
        """Every layer in order; one the kernel refuses comes back inactive, the rest still apply."""
        return [
            self._directory(),
            self._limits(cpu_seconds, memory_mb, descriptors),
            self._namespaces(),
            self._user(),
            self._no_new_privs(),
            self._seccomp(),
        ]

    @staticmethod
    def refused(layers: list[Layer], required: Collection[str]) -> Layer | None:
        """The first missing layer the strategy must not run without (`user` always), else None."""
        return next(
            (la for la in layers if not la.active and (la.name in required or la.name == "user")), None
        )

    @staticmethod
    def directory_of(pid: int) -> str:
        """A child's directory, relative to the worker's."""
        return f"strategy-{pid}"

    def _uid(self) -> int:
        """The child's uid: the server's own when it is not root, else one of its own (or nobody)."""
        if not self._root:
            return self._server_uid
        own = UID_BASE + os.getpid()
        return own if any(start <= own < end for start, end in self._mapped) else NOBODY

    def _directory(self) -> Layer:
        path = self.directory_of(os.getpid())
        try:
            os.mkdir(path, 0o700)
            if self._root:
                os.chown(path, self._uid(), self._uid())
            os.chdir(path)
        except OSError as exc:
            return Layer("directory", False, f"no directory of its own: {exc.strerror}")
        return Layer("directory", True, "a fresh empty directory of its own, removed when it ends")

    def _limits(self, cpu_seconds: int, memory_mb: int, descriptors: int) -> Layer:
        try:
            address_space = _address_space() + memory_mb * MIB
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
            resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
            resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors))
            resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
        except (OSError, ValueError) as exc:
            return Layer("limits", False, f"a resource limit was refused: {exc}")
        return Layer(
            "limits",
            True,
            f"{cpu_seconds} s of CPU, {memory_mb} MB of address space above the loaded libraries, "
            f"no file writes, {descriptors} descriptors, 1 process (no fork, no thread)",
        )

    def _namespaces(self) -> Layer:
        flags = CLONE_NEWNET | CLONE_NEWIPC | (0 if self._root else CLONE_NEWUSER)
        if self._libc.unshare(ctypes.c_int(flags)) != 0:
            reason = os.strerror(ctypes.get_errno())
            return Layer(
                "namespaces",
                False,
                f"the kernel refused new namespaces ({reason}): the strategy shares the host's network, "
                "kept from it by the seccomp filter alone",
            )
        where = "" if self._root else ", inside a user namespace of its own"
        return Layer(
            "namespaces", True, f"a network namespace with no interface up and an IPC namespace{where}"
        )

    def _user(self) -> Layer:
        self._prctl(PR_SET_DUMPABLE, 0)
        if not self._root:
            return Layer(
                "user",
                True,
                f"the server's own uid {self._server_uid} (not root: no other user to switch to); "
                "its processes and files are kept from the strategy by the seccomp filter",
            )
        uid = self._uid()
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        except OSError as exc:
            return Layer("user", False, f"could not leave root: {exc.strerror}")
        who = (
            f"{UID_BASE} + its pid (no account's)"
            if uid != NOBODY
            else f"{NOBODY} (nobody: {UID_BASE}+ unmapped)"
        )
        return Layer("user", True, f"uid and gid {who}, no groups, not dumpable")

    def _no_new_privs(self) -> Layer:
        if self._prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
            return Layer("no_new_privs", False, f"refused: {os.strerror(ctypes.get_errno())}")
        return Layer("no_new_privs", True, "set: no exec can gain privileges")

    def _seccomp(self) -> Layer:
        if self._fprog is None:
            return Layer("seccomp", False, f"no system call table for {platform.machine()} here")
        if self._prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(self._fprog)) != 0:
            return Layer(
                "seccomp", False, f"the kernel refused the filter: {os.strerror(ctypes.get_errno())}"
            )
        return Layer(
            "seccomp",
            True,
            f"{len(DENIED)} system calls refused: sockets, signals, ptrace, opening or changing "
            "files by name, exec, io_uring, namespaces",
        )

    def _prctl(self, option: int, arg2: int = 0, arg3: int = 0) -> int:
        # every argument as a full unsigned long: prctl is variadic, and the kernel refuses
        # PR_SET_NO_NEW_PRIVS when the unused ones are not zero
        unused = ctypes.c_ulong(0)
        return int(
            self._libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), unused, unused)
        )


def _mapped_uids() -> list[tuple[int, int]]:
    """[start, end) of the uids this user namespace maps (all of them outside any container)."""
    try:
        with open("/proc/self/uid_map") as lines:
            rows = [[int(n) for n in line.split()] for line in lines]
    except (OSError, ValueError):
        return [(0, 2**32 - 1)]
    return [(inside, inside + count) for inside, _, count in rows]


def _address_space() -> int:
    """Bytes mapped now (VmSize): the memory limit is headroom on top of the loaded libraries."""
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        pages = int(os.read(fd, 128).split()[0])
    finally:
        os.close(fd)
    return pages * os.sysconf("SC_PAGE_SIZE")
