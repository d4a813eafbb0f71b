"""The seccomp program itself: its numbers, its shape, and refusing unknown machines."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from niwa.referee import seccomp
from niwa.referee.sandbox import SandboxUnavailable, bwrap

HEADERS = {
    "x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    "aarch64": Path("/usr/include/asm-generic/unistd.h"),
}


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_syscall_numbers_match_the_kernel_headers(machine: str) -> None:
    header = HEADERS[machine]
    if not header.exists():
        pytest.skip(f"{header} is not installed (linux-libc-dev)")
    defined = {
        m[1]: int(m[2])
        for m in re.finditer(r"^#define __NR_(\w+)\s+(\d+)$", header.read_text(), re.M)
    }
    ours = seccomp.ARCHES[machine].numbers
    known = {name: nr for name, nr in ours.items() if name in defined}
    assert known == {name: defined[name] for name in known}
    assert len(known) >= len(ours) - 3  # only calls newer than the headers are missing


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_every_denied_call_has_a_rule_and_jumps_stay_inside(machine: str) -> None:
    program = seccomp.program(machine)
    insns = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    compared = {k for code, _, _, k in insns if code == 0x15}
    nums = seccomp.ARCHES[machine].numbers
    for name in (*seccomp.DENIED_CALLS, *seccomp.ENOSYS_CALLS):
        if name in nums:
            assert nums[name] in compared, name
    for i, (code, jt, jf, _) in enumerate(insns):
        if code & 0x07 == 0x05:  # a jump
            assert i + 1 + max(jt, jf) < len(insns)
    assert insns[-1] == (0x06, 0, 0, seccomp.RET_ALLOW)


def test_an_unknown_machine_refuses_sandboxed_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seccomp.platform, "machine", lambda: "riscv64")
    with pytest.raises(SandboxUnavailable, match=r"riscv64 architecture.*--no-sandbox"):
        bwrap()
