"""The seccomp filter a sandboxed bot runs under: a classic BPF program, built here with
:mod:`struct` and handed to bubblewrap (``--seccomp FD``), which loads it just before
it runs the bot's command.

What it refuses (a bot never needs any of it; each is kernel attack surface or a way
around the sandbox): io_uring, bpf, perf_event_open, the key rings, every mount call,
ptrace and cross-process memory access, kexec and kernel modules, new namespaces
(unshare, setns, clone with a ``CLONE_NEW*`` flag), userfaultfd, swap, reboot, acct,
quotas, file handles, syslog, I/O port access, and personalities other than the
ordinary ones. Refused calls fail with EPERM; io_uring and clone3 with ENOSYS, the
answer runtimes treat as "not available here" (glibc then creates threads with
clone, whose flags the filter can read: clone3 passes them in memory it cannot).
A system call of another ABI (i386 ``int 0x80`` or x32 on x86_64, arm32 on aarch64)
fails with ENOSYS.

Numbers come from the kernel's tables: ``arch/x86/entry/syscalls/syscall_64.tbl``
and ``include/uapi/asm-generic/unistd.h`` (aarch64); since 5.1 (424 and up) every
architecture shares the same numbers.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

from niwa.errors import RefereeError


class UnsupportedArch(RefereeError, RuntimeError):
    """No filter is known for this machine's architecture."""


@dataclass(frozen=True)
class _Arch:
    audit: int  # AUDIT_ARCH_* as seccomp_data.arch reports it
    numbers: dict[str, int]
    #: Syscall numbers at or above this belong to another ABI (x32), or None.
    foreign_from: int | None = None


# Shared by every architecture (the unified numbering since Linux 5.1).
_COMMON = {
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "clone3": 435, "mount_setattr": 442, "quotactl_fd": 443,
    "statmount": 457, "listmount": 458, "open_tree_attr": 467,
}  # fmt: skip

_X86_64 = {
    **_COMMON,
    "clone": 56, "ptrace": 101, "syslog": 103, "uselib": 134, "personality": 135,
    "pivot_root": 155, "acct": 163, "mount": 165, "umount2": 166, "swapon": 167,
    "swapoff": 168, "reboot": 169, "iopl": 172, "ioperm": 173, "init_module": 175,
    "delete_module": 176, "quotactl": 179, "lookup_dcookie": 212, "kexec_load": 246,
    "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272,
    "perf_event_open": 298, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311,
    "finit_module": 313, "kexec_file_load": 320, "bpf": 321, "userfaultfd": 323,
}  # fmt: skip

_AARCH64 = {
    **_COMMON,
    "lookup_dcookie": 18, "umount2": 39, "mount": 40, "pivot_root": 41, "quotactl": 60,
    "acct": 89, "personality": 92, "unshare": 97, "kexec_load": 104, "init_module": 105,
    "delete_module": 106, "syslog": 116, "ptrace": 117, "reboot": 142, "add_key": 217,
    "request_key": 218, "keyctl": 219, "clone": 220, "swapon": 224, "swapoff": 225,
    "perf_event_open": 241, "name_to_handle_at": 264, "open_by_handle_at": 265,
    "setns": 268, "process_vm_readv": 270, "process_vm_writev": 271,
    "finit_module": 273, "bpf": 280, "userfaultfd": 282, "kexec_file_load": 294,
}  # fmt: skip

ARCHES = {
    "x86_64": _Arch(audit=0xC000003E, numbers=_X86_64, foreign_from=0x40000000),
    "aarch64": _Arch(audit=0xC00000B7, numbers=_AARCH64),
}

#: Refused with ENOSYS ("not available"), so runtimes fall back quietly.
ENOSYS_CALLS = ("io_uring_setup", "io_uring_enter", "io_uring_register", "clone3")
#: Refused with EPERM.
DENIED_CALLS = (
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "mount", "umount2", "pivot_root", "move_mount", "open_tree", "open_tree_attr",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "statmount", "listmount",
    "ptrace", "process_vm_readv", "process_vm_writev", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "unshare", "setns", "userfaultfd",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "quotactl_fd",
    "name_to_handle_at", "open_by_handle_at", "syslog", "uselib", "lookup_dcookie",
    "iopl", "ioperm",
)  # fmt: skip
#: clone flags that make a new namespace (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC,
#: NEWUSER, NEWPID, NEWNET); clone refuses them with EPERM.
CLONE_NEW_FLAGS = 0x7E020000
#: personality() values allowed: PER_LINUX, PER_LINUX32, UNAME26 (alone or with
#: PER_LINUX32) and the 0xffffffff query. The rest (READ_IMPLIES_EXEC, MMAP_PAGE_ZERO,
#: ADDR_NO_RANDOMIZE, legacy ABIs) fail with EPERM.
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
# Offsets in struct seccomp_data: nr, arch, then args[6] (64-bit, little-endian: the
# low 32 bits of args[0] are at 16).
_NR, _ARCH, _ARG0_LOW = 0, 4, 16


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _deny(nr: int, err: int) -> bytes:
    """If the syscall is ``nr``, fail it with ``err``; else fall through."""
    return _insn(_JEQ_K, nr, 0, 1) + _insn(_RET_K, RET_ERRNO | err)


def arch(machine: str | None = None) -> _Arch:
    name = machine or platform.machine()
    try:
        return ARCHES[name]
    except KeyError:
        raise UnsupportedArch(
            f"no seccomp filter for the {name} architecture (niwa knows "
            f"{', '.join(ARCHES)}): run trusted bots with --no-sandbox"
        ) from None


def program(machine: str | None = None) -> bytes:
    """The filter for ``machine`` (default: this one), as bubblewrap reads it: an array
    of ``struct sock_filter``."""
    a = arch(machine)
    nums = a.numbers
    out = [
        _insn(_LD_W_ABS, _ARCH),
        _insn(_JEQ_K, a.audit, 1, 0),
        _insn(_RET_K, RET_ERRNO | errno.ENOSYS),  # another ABI's call
        _insn(_LD_W_ABS, _NR),
    ]
    if a.foreign_from is not None:
        out += [_insn(_JGE_K, a.foreign_from, 0, 1), _insn(_RET_K, RET_ERRNO | errno.ENOSYS)]
    out += [_deny(nums[name], errno.ENOSYS) for name in ENOSYS_CALLS]
    out += [_deny(nums[name], errno.EPERM) for name in DENIED_CALLS if name in nums]
    # clone: refuse namespace flags (then reload nr for the checks below).
    out += [
        _insn(_JEQ_K, nums["clone"], 0, 4),
        _insn(_LD_W_ABS, _ARG0_LOW),
        _insn(_JSET_K, CLONE_NEW_FLAGS, 0, 1),
        _insn(_RET_K, RET_ERRNO | errno.EPERM),
        _insn(_RET_K, RET_ALLOW),
    ]
    # personality: only the listed values.
    n = len(PERSONALITIES)
    out += [_insn(_JEQ_K, nums["personality"], 0, n + 2), _insn(_LD_W_ABS, _ARG0_LOW)]
    for i, value in enumerate(PERSONALITIES):
        out.append(_insn(_JEQ_K, value, n - i, 0))  # to the ALLOW after the EPERM
    out += [_insn(_RET_K, RET_ERRNO | errno.EPERM), _insn(_RET_K, RET_ALLOW)]
    out.append(_insn(_RET_K, RET_ALLOW))
    return b"".join(out)
