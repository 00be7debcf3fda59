"""A small Go program against Porcupine's public API, written out and built at run time.

`compare_porcupine.py --families` uses it to check the histories of `history_families.py`
with Porcupine, side by side with ours. The program (below, ours) defines two models with
Porcupine's `Model` record: a key-value map partitioned by key (get, put, append; states are
strings, "" for a key never written) and a compare-and-set register (read, write, cas; -1
for null). Both give Porcupine a state hash (`Model.Hash`), which makes its cache faster; a
timed-out operation gets an unknown output its model accepts, and its return is put at the end
of the history, as Porcupine's own Jepsen parser does. `fail`ed operations did not happen and
are left out, as our `pair` does; timed-out reads are left out too (they constrain nothing).

Nothing of Porcupine's source is copied: `build` writes this program and a go.mod that points
at a Porcupine checkout into a temporary folder and runs `go build` there (offline).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_MAIN_GO = r"""package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"time"

	"github.com/anishathalye/porcupine"
)

// A history as porcupine_driver.py writes it: events in history order, each
// [kind (0 call, 1 return), id, op (0 read/get, 1 write/put, 2 cas/append), key, a, b, unknown (0/1)].
type history struct {
	Name   string              `json:"name"`
	Model  string              `json:"model"`
	Events [][]json.RawMessage `json:"events"`
}

type kvIn struct {
	op         int
	key, value string
}

type kvOut struct {
	value   string
	unknown bool
}

type regIn struct {
	op, a, b int
}

type regOut struct {
	value   int
	unknown bool
}

func keyOf(e porcupine.Event, calls map[int]string) string {
	if e.Kind == porcupine.CallEvent {
		calls[e.Id] = e.Value.(kvIn).key
	}
	return calls[e.Id]
}

var kvModel = porcupine.Model{
	PartitionEvent: func(events []porcupine.Event) [][]porcupine.Event {
		calls := map[int]string{}
		index := map[string]int{}
		var parts [][]porcupine.Event
		for _, e := range events {
			k := keyOf(e, calls)
			i, seen := index[k]
			if !seen {
				i = len(parts)
				index[k] = i
				parts = append(parts, nil)
			}
			parts[i] = append(parts[i], e)
		}
		return parts
	},
	Init: func() interface{} { return "" },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		s, in, out := state.(string), input.(kvIn), output.(kvOut)
		switch in.op {
		case 0:
			return out.unknown || out.value == s, s
		case 1:
			return true, in.value
		default:
			return true, s + in.value
		}
	},
	Hash: func(state interface{}) uint64 {
		h := fnv.New64a()
		h.Write([]byte(state.(string)))
		return h.Sum64()
	},
}

var registerModel = porcupine.Model{
	Init: func() interface{} { return -1 },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		s, in, out := state.(int), input.(regIn), output.(regOut)
		switch in.op {
		case 0:
			return out.unknown || out.value == s, s
		case 1:
			return true, in.a
		default:
			if s == in.a {
				return true, in.b
			}
			return out.unknown, s // an ok cas swapped; one of unknown outcome may not have
		}
	},
	Hash: func(state interface{}) uint64 { return uint64(state.(int)) * 0x9e3779b97f4a7c15 },
}

func decode(h history) (porcupine.Model, []porcupine.Event) {
	kv := h.Model == "kv"
	events := make([]porcupine.Event, 0, len(h.Events))
	for _, raw := range h.Events {
		var kind, id, op, unknown int
		var key string
		json.Unmarshal(raw[0], &kind)
		json.Unmarshal(raw[1], &id)
		json.Unmarshal(raw[2], &op)
		json.Unmarshal(raw[3], &key)
		json.Unmarshal(raw[6], &unknown)
		var value interface{}
		if kv {
			var a string
			json.Unmarshal(raw[4], &a)
			if kind == 0 {
				value = kvIn{op, key, a}
			} else {
				value = kvOut{a, unknown == 1}
			}
		} else {
			var a, b int
			json.Unmarshal(raw[4], &a)
			json.Unmarshal(raw[5], &b)
			if kind == 0 {
				value = regIn{op, a, b}
			} else {
				value = regOut{a, unknown == 1}
			}
		}
		k := porcupine.CallEvent
		if kind == 1 {
			k = porcupine.ReturnEvent
		}
		events = append(events, porcupine.Event{Kind: k, Value: value, Id: id})
	}
	if kv {
		return kvModel, events
	}
	return registerModel, events
}

// Usage: driver TIMEOUT_S MIN_S FILE...: for each history, CheckEventsTimeout as many times as
// fill MIN_S seconds (at least once; once only if it timed out), one JSON line with the mean.
func main() {
	var timeout, spend float64
	fmt.Sscan(os.Args[1], &timeout)
	fmt.Sscan(os.Args[2], &spend)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	names := map[porcupine.CheckResult]string{porcupine.Ok: "ok", porcupine.Illegal: "illegal", porcupine.Unknown: "unknown"}
	for _, path := range os.Args[3:] {
		data, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		var h history
		if err := json.Unmarshal(data, &h); err != nil {
			panic(err)
		}
		model, events := decode(h)
		runs := 0
		var result porcupine.CheckResult
		start := time.Now()
		for {
			result = porcupine.CheckEventsTimeout(model, events, time.Duration(timeout*float64(time.Second)))
			runs++
			if result == porcupine.Unknown || time.Since(start).Seconds() >= spend {
				break
			}
		}
		seconds := time.Since(start).Seconds() / float64(runs)
		line, _ := json.Marshal(map[string]interface{}{"name": h.Name, "result": names[result], "seconds": seconds, "runs": runs})
		fmt.Fprintln(out, string(line))
		out.Flush()
	}
}
"""

_GO_MOD = """module tcmcheck.invalid/porcupinedriver

go 1.16

require github.com/anishathalye/porcupine v0.0.0

replace github.com/anishathalye/porcupine => {checkout}
"""

_OP = {"get": 0, "read": 0, "put": 1, "write": 1, "append": 2, "cas": 2}


def build(checkout: Path, folder: Path) -> Path:
    """Write the driver and its go.mod into `folder` and build it against the Porcupine
    checkout (no network: the only module is the checkout itself). The executable's path."""
    (folder / "main.go").write_text(_MAIN_GO, encoding="utf-8")
    (folder / "go.mod").write_text(_GO_MOD.format(checkout=checkout.resolve()), encoding="utf-8")
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local", CGO_ENABLED="0")
    env.setdefault("GOCACHE", str(folder / "gocache"))
    exe = folder / "driver"
    done = subprocess.run(["go", "build", "-o", str(exe), "."], cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"go build of the Porcupine driver failed: {done.stderr.strip()[:500]}")
    return exe


def events(name: str, model: str, operations: Sequence[Any]) -> dict[str, Any]:
    """The driver's input for one history, from our paired operations (`pair`'s output)."""
    kv = model == "kv"
    timed: list[tuple[int, list[Any]]] = []
    last: list[list[Any]] = []
    for o in operations:
        if o.ret is None and o.f in ("get", "read"):
            continue
        unknown = 1 if o.ret is None else 0
        if kv:
            call = [0, o.id, _OP[o.f], str(o.key), o.input or "", 0, 0]
            done = [1, o.id, 0, str(o.key), o.output or "", 0, unknown]
        else:
            a, b = o.input if o.f == "cas" else (o.input, 0)
            value = o.output if o.f == "read" else 0
            call = [0, o.id, _OP[o.f], "", -1 if a is None else a, b, 0]
            done = [1, o.id, 0, "", -1 if value is None else value, 0, unknown]
        timed.append((o.call, call))
        if o.ret is None:
            last.append(done)  # an unknown outcome: it may take effect until the end
        else:
            timed.append((o.ret, done))
    timed.sort(key=lambda t: t[0])
    return {"name": name, "model": "kv" if kv else "register", "events": [e for _, e in timed] + last}


def run(exe: Path, files: Sequence[Path], timeout: float, spend: float) -> dict[str, dict[str, Any]]:
    """Porcupine's verdict and mean time (s) per history name."""
    out = subprocess.run([str(exe), str(timeout), str(spend), *map(str, files)],
                         capture_output=True, text=True, check=True).stdout
    results = {}
    for line in out.splitlines():
        row = json.loads(line)
        results[row["name"]] = row
    return results
