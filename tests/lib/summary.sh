#!/bin/bash
# The end of `make check`: what the test files' TAP (kept by
# tests/lib/record.sh in build/logs/results/) says was checked.
#   N passed, N failed, N skipped, N todo (known failures),
#   plus M harness checks, F failed
# (a "harness: ..." result, tests/lib/tap.sh's harness(), is about the run
# itself: a guest's exit status, its plans, its skips against the list; it
# is counted apart, and a failed one fails its test file like any other),
# then every skip and known failure with its reason and how often, and the
# test files that failed (a "not ok", a plan not met or a non-zero exit),
# each with its first ten "not ok" lines: CI keeps only the end of the log.
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$top/build/logs/results}
ls "$dir"/*.tap > /dev/null 2>&1 || { echo "no test results in $dir"; exit 1; }
awk '
	FNR == 1 {
		file = FILENAME; sub(/.*\//, "", file); sub(/\.tap$/, "", file)
		gsub(/%/, "/", file); files[++nf] = file
		rcf = FILENAME; sub(/\.tap$/, ".rc", rcf)
		rc[file] = "none"
		if ((getline r < rcf) > 0)
			rc[file] = r
		close(rcf)
	}
	/^1\.\.[0-9]+/ { plan[file] = substr($1, 4) + 0; next }
	!/^(not )?ok($|[ \t])/ { next }
	{
		n[file]++
		d = ""
		if (match($0, /#[ \t]*[Ss][Kk][Ii][Pp]([ \t]|$)/))
			d = "skip"
		else if (match($0, /#[ \t]*[Tt][Oo][Dd][Oo]([ \t]|$)/))
			d = "todo"
		why = d == "" ? "" : substr($0, RSTART + RLENGTH)
		sub(/^[ \t]+/, "", why)
		if (why == "")
			why = "no reason given"
		harness = d == "" && /^(not )?ok( [0-9]+)?( -)? harness: /
		if (harness)
			hchecks++
		if (/^not ok/ && d != "todo") {
			if (harness)
				hfailed++
			else
				failed++
			if (++bad[file] <= 10) {
				line = $0
				gsub(/\t/, " ", line)	# the second awk splits on tabs
				notok[file] = notok[file] "      " line "\n"
			}
		} else if (d == "skip") {
			skipped++; reason["skip\t" why "\t" file]++
		} else if (d == "todo") {
			todo++; reason["todo\t" why "\t" file]++
		} else if (!harness) {
			passed++
		}
	}
	END {
		sort = "sort -t \"\t\" -k1,1 -k3"
		for (k in reason) {
			split(k, p, "\t")
			printf "%s\t%s\t%s\t%d\n", p[3], p[1], p[2], reason[k] | sort
		}
		close(sort)
		for (i = 1; i <= nf; i++) {
			f = files[i]
			why = ""
			if (bad[f])
				why = why ", " bad[f] " not ok"
			if (!(f in plan))
				why = why ", no plan"
			else if (plan[f] != n[f])
				why = why ", " n[f] " of " plan[f] " planned results"
			if (rc[f] != "0")
				why = why ", exit status " rc[f]
			if (why != "") {
				fails = fails "  " f ": " substr(why, 3) "\n" notok[f]
				if (bad[f] > 10)
					fails = fails "      (and " bad[f] - 10 " more)\n"
				nfail++
			}
		}
		printf "%d passed, %d failed, %d skipped, %d todo (known failures), plus %d harness checks, %d failed, in %d test files\n",
		       passed, failed, skipped, todo, hchecks, hfailed, nf
		if (nfail)
			printf "%d test files failed:\n%s", nfail, fails
	}' "$dir"/*.tap |
awk -F'\t' 'NF == 4 {
		if (!head++)
			print "skips and known failures (todo), with their reasons:"
		printf "  %-28s %-4s %4d  %s\n", $1, $2, $4, $3
		next
	}
	{ print }'
