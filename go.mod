module havlak-lab

go 1.27

require golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/chzyer/readline v1.5.1 // indirect
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe // indirect
	github.com/ianlancetaylor/demangle v0.0.0-20250417193237-f615e6bd150b // indirect
	golang.org/x/sys v0.48.0 // indirect
)

tool (
	github.com/google/pprof
	golang.org/x/perf/cmd/benchstat
)
