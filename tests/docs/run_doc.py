#!/usr/bin/env python3
"""Docs as tests: runs every command block of a Markdown file, in order, from the repository root,
so the document cannot go stale. Usage: run_doc.py DOC.md REPO_ROOT

Fenced blocks, by their info string:
  sh [exit=N]        run with bash -euo pipefail; the exit status must be N (default 0)
  python             run with /usr/bin/python3 (from a file, so torch.jit.script can read the
                     source), the build tree's package first on PYTHONPATH
  cpp|cmake|python|java file=PATH
                     written to PATH (relative to the root) for a later block to build or run
  text               output shown to the reader; not run
Any other block (or one without an info string) is an error, so nothing escapes the test."""
import os, re, subprocess, sys, tempfile, time

doc, root = sys.argv[1], os.path.abspath(sys.argv[2])
text = open(doc).read()
blocks = []
for m in re.finditer(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", text, re.M | re.S):
    info = m.group(1).split()
    line = text.count("\n", 0, m.start()) + 1
    blocks.append((line, info, m.group(2)))
if not blocks:
    sys.exit(f"{doc}: no code blocks")

env = dict(os.environ)
env["PYTHONPATH"] = os.path.join(root, "build", "python") + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
ran = 0
tmp = tempfile.TemporaryDirectory(prefix="tvk_doc_")
for line, info, body in blocks:
    where = f"{os.path.basename(doc)}:{line}"
    if not info:
        sys.exit(f"{where}: a code block without a language; use sh, python, cpp file=, cmake file= or text")
    lang, opts = info[0], dict(o.split("=", 1) for o in info[1:] if "=" in o)
    if lang == "text":
        continue
    if lang in ("cpp", "cmake", "java") or (lang == "python" and "file" in opts):
        if "file" not in opts:
            sys.exit(f"{where}: a {lang} block needs file=PATH")
        path = os.path.join(root, opts["file"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(body)
        continue
    if lang == "sh":
        cmd = ["bash", "-euo", "pipefail", "-c", body]
    elif lang == "python":
        script = os.path.join(tmp.name, f"block_{line}.py")
        with open(script, "w") as f:
            f.write(body)
        cmd = ["/usr/bin/python3", script]
    else:
        sys.exit(f"{where}: unknown block language '{lang}'")
    want = int(opts.get("exit", "0"))
    start = time.time()
    r = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    ran += 1
    print(f"--- {where} ({lang}, {time.time() - start:.1f} s, exit {r.returncode})")
    print(body.rstrip())
    out = (r.stdout + r.stderr).rstrip()
    print("\n".join("  | " + l for l in out.splitlines()[-40:]))
    if r.returncode != want:
        sys.exit(f"FAIL {where}: exit status {r.returncode}, the guide says {want}")
    if "[tvk vulkan validation]" in out:
        sys.exit(f"FAIL {where}: the Vulkan validation layer reported a problem")
print(f"all {ran} command blocks of {os.path.basename(doc)} ran as written")
