#!/usr/bin/python3
"""Top function lengths (lines from the signature's line to the closing brace) in C++ sources."""
import os, re, sys
root = sys.argv[1]
SIG = re.compile(r'^([A-Za-z_][\w:<>,\*&\s~]*?)\b([A-Za-z_][\w:~]*)\s*\(([^;]*)\)\s*(const)?\s*(override)?\s*(noexcept)?\s*(->\s*[\w:<>]+)?\s*\{\s*$')
out = []
for top in ("pipeline", "service", "config", "models", "lsh"):
    for d, _, names in os.walk(os.path.join(root, top)):
        for n in names:
            if not n.endswith(".cpp"): continue
            p = os.path.join(d, n)
            lines = open(p, errors="replace").read().split("\n")
            i = 0
            while i < len(lines):
                l = lines[i]
                if not l.startswith((" ", "\t", "}", "#", "/")) and "(" in l:
                    # join a multi-line signature up to the opening brace
                    j = i; sig = l
                    while not sig.rstrip().endswith("{") and j < i + 6 and j + 1 < len(lines) and ";" not in sig:
                        j += 1; sig += " " + lines[j].strip()
                    m = SIG.match(sig.replace("\n", " "))
                    if m and m.group(2) not in ("if", "for", "while", "switch", "namespace"):
                        depth = 0; k = j
                        for k in range(i, len(lines)):
                            t = re.sub(r"'(\\.|[^'\\])'", "", lines[k])
                            t = re.sub(r'"(\\.|[^"\\])*"', "", t)
                            t = t.split("//")[0]
                            depth += t.count("{") - t.count("}")
                            if depth == 0 and k > i: break
                        out.append((k - i + 1, os.path.relpath(p, root), m.group(2)))
                        i = k + 1; continue
                i += 1
out.sort(reverse=True)
for n, p, f in out[:int(sys.argv[2]) if len(sys.argv) > 2 else 5]:
    print(f"{n:4d}  {f}  ({p})")
