#!/usr/bin/env python3
"""The figures of one fault drill (scripts/drill.sh), as a Markdown section.

Arguments: KIND TURNS.jsonl FAULTS START_MS DUPLICATES PROMPT_STATES

TURNS.jsonl holds one record per turn a user started (parley-bench --drill): when it was
sent and accepted (a prompt recorded), how its reader's feed ended, and the prompt's
state at the end. FAULTS holds one fault per line: start and end (epoch ms), then what.
The verdict fails when an accepted turn was lost or a side effect ran twice.
"""

import json
import statistics
import sys

UNFINISHED = {"created", "in_progress", "waiting_for_tools"}
WINDOW_MS = 2000  # the rate after a fault is counted over this window


def main() -> None:
    kind, turns_path, faults_path, start, duplicates, states = sys.argv[1:7]
    start = int(start)
    duplicates = int(duplicates or 0)
    turns = [json.loads(line) for line in open(turns_path) if line.strip()]
    faults = []
    for line in open(faults_path):
        parts = line.split(maxsplit=2)
        if len(parts) == 3:
            faults.append((int(parts[0]), int(parts[1]), parts[2].strip()))

    accepted = [t for t in turns if t["accepted_ms"] is not None]
    refused = [t for t in turns if t["accepted_ms"] is None]
    completed = [t for t in accepted if t["outcome"] == "complete"]
    errored = [t for t in accepted if t["outcome"].startswith("error") or t["outcome"] == "cancelled"]
    lost = [t for t in accepted if t["prompt_state"] in UNFINISHED or t["prompt_state"] is None]
    no_terminal = [t for t in accepted if not t["reader_terminal"]]
    load_end = max((t["sent_ms"] for t in turns), default=start)

    ends = sorted(t["ended_ms"] for t in completed)
    gap, gap_at = longest_gap(ends, start, load_end)
    recoveries = recovery_times(ends, faults, start)

    codes = {}
    for t in errored:
        codes[t["outcome"]] = codes.get(t["outcome"], 0) + 1
    reconnects = sum(t["reconnects"] for t in accepted)
    verdict = "PASS" if not lost and duplicates == 0 else "FAIL"

    print(f"## {kind}")
    print()
    for start_ms, end_ms, what in faults[:3]:
        print(f"* fault at {(start_ms - start) / 1000:.1f} s: {what}")
    if len(faults) > 3:
        print(f"* … {len(faults)} faults in all")
    print()
    print("| figure | value |")
    print("|---|---|")
    print(f"| turns started by the users | {len(turns)} |")
    print(f"| accepted (prompt recorded) | {len(accepted)} |")
    print(f"| refused at the API (the user saw an error; retried until the load ended) | {len(refused)} |")
    print(f"| completed | {len(completed)} |")
    detail = ", ".join(f"{code} {n}" for code, n in sorted(codes.items())) or "—"
    print(f"| errored visibly (terminal event seen) | {len(errored)} ({detail}) |")
    print(f"| **lost** (accepted, never terminal) | **{len(lost)}** |")
    print(f"| readers without a terminal event | {len(no_terminal)} |")
    print(f"| **duplicated function side effects** | **{duplicates}** |")
    print(f"| reconnects of readers (Last-Event-ID) | {reconnects} |")
    print(f"| longest time without a completed turn | {gap / 1000:.1f} s (from {gap_at / 1000:.1f} s) |")
    if recoveries:
        print(
            f"| time to recover (completions back to half the rate before the fault) | max {max(recoveries) / 1000:.1f} s, "
            f"median {statistics.median(recoveries) / 1000:.1f} s over {len(recoveries)} faults |"
        )
    caught = caught_turns(accepted, faults)
    if caught:
        slowest = max(end for _, end in caught)
        late = sorted(end for _, end in caught)
        print(
            f"| turns in flight at a fault | {len(caught)}; they ended a median "
            f"{statistics.median(late) / 1000:.1f} s and at most {slowest / 1000:.1f} s after it |"
        )
    print(f"| prompts by state at the end | {states} |")
    print()
    print(f"VERDICT: {verdict}")
    print()
    if lost:
        print("lost turns:", [t["prompt_id"] for t in lost][:10], file=sys.stderr)


def longest_gap(ends, start, load_end):
    """The longest stretch of the load with no turn completing, and where it began."""
    best, at = 0, 0
    previous = start
    for end in ends + [load_end]:
        if end - previous > best:
            best, at = end - previous, previous - start
        previous = max(previous, end)
    return best, at


def caught_turns(accepted, faults):
    """The turns in flight when a fault began (accepted before it, ended after it), each
    with how long after the fault's start it ended (its terminal event, whatever it was)."""
    out = []
    for t in accepted:
        if t["ended_ms"] is None:
            continue
        for start_ms, _, _ in faults:
            if t["accepted_ms"] < start_ms < t["ended_ms"]:
                out.append((t["prompt_id"], t["ended_ms"] - start_ms))
                break
    return out


def recovery_times(ends, faults, start):
    """For each fault: from its end until completions are back to half the rate of the
    time before the first fault (per WINDOW_MS)."""
    if not faults or not ends:
        return []
    first = faults[0][0]
    before = [e for e in ends if start + 3000 <= e < first]
    span = max(first - (start + 3000), 1)
    baseline = len(before) * WINDOW_MS / span
    if baseline <= 0:
        return []
    out = []
    for _, end, _ in faults:
        t = end
        while t < ends[-1]:
            in_window = sum(1 for e in ends if t <= e < t + WINDOW_MS)
            if in_window >= baseline / 2:
                out.append(t - end)
                break
            t += 100
    return out


if __name__ == "__main__":
    main()
