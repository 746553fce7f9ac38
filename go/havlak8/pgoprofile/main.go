// Command pgoprofile makes the CPU profile that havlak8 is compiled with:
// it runs a program (havlak7) several times with -cpuprofile, merges the
// profiles (go/internal/pgo) and writes the result atomically.
//
//	pgoprofile [-runs N] -o FILE PROGRAM [ARG...]
//
// Under `bazel run`, FILE is relative to the workspace: the target
// //go/havlak8/pgoprofile rewrites go/havlak8/default.pgo from havlak7 on
// the standard workload.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/google/pprof/profile"

	"havlak-lab/go/internal/pgo"
	"havlak-lab/internal/atomicfile"
	"havlak-lab/internal/cli"
)

func main() {
	cli.Exit(run(os.Args[1:]))
}

func run(args []string) error {
	fs := flag.NewFlagSet("pgoprofile", flag.ContinueOnError)
	runs := fs.Int("runs", 5, "profile `n` runs of the program and merge their profiles")
	out := fs.String("o", "", "write the merged profile to `file` (relative to the workspace under bazel run)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: pgoprofile [-runs N] -o FILE PROGRAM [ARG...]")
		fs.PrintDefaults()
	}
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return cli.Usagef("-o and a program are required")
	}
	if *runs < 1 || *runs > 100 {
		return cli.Usagef("-runs %d: want 1 to 100", *runs)
	}
	path := *out
	if !filepath.IsAbs(path) {
		path = filepath.Join(cli.WorkspaceRoot(), path)
	}

	tmp, err := os.MkdirTemp("", "pgoprofile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var profiles []*profile.Profile
	for i := 1; i <= *runs; i++ {
		file := filepath.Join(tmp, fmt.Sprintf("run%d.pprof", i))
		if err := profileRun(file, fs.Arg(0), fs.Args()[1:]); err != nil {
			return fmt.Errorf("run %d of %s: %w", i, fs.Arg(0), err)
		}
		p, err := pgo.ReadProfile(file)
		if err != nil {
			return err
		}
		profiles = append(profiles, p)
	}
	merged, err := pgo.Merge(profiles)
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := merged.Write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Printf("%s: %d samples from %d runs\n", path, sampleCount(merged), *runs)
	return nil
}

// profileRun runs the program once with -cpuprofile=file, its output
// discarded: the profile is what counts.
func profileRun(file, program string, args []string) error {
	cmd := exec.Command(program, append(args, "-cpuprofile="+file)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("%s", exit.ProcessState)
		}
		return err
	}
	return nil
}

func sampleCount(p *profile.Profile) int64 {
	var n int64
	for _, s := range p.Sample {
		n += s.Value[0]
	}
	return n
}
