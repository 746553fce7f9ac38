package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
)

// alertsUsage is made from tools/alert's rules: an action's line says
// what it takes.
var alertsUsage = func() string {
	lines := []string{"usage:",
		"  history alerts DSN [list] [--state S] [--kind K] [--benchmark B] [--all]",
		"  history alerts DSN show ID",
		"  history alerts DSN assign ID NAME [--by NAME]   (NAME \"\": nobody)"}
	for _, act := range alert.Actions {
		lines = append(lines, fmt.Sprintf("  history alerts DSN %s ID %s [--by NAME]", act, alert.Flags.Usage(act)))
	}
	return strings.Join(append(lines,
		"list shows the open alerts (all but fixed; --all: those too), newest first.",
		"States: "+strings.Join(stateNames(), ", ")+" (docs/triage.md)."), "\n")
}()

// runAlerts is `history alerts`: it lists the alerts of the history and
// changes their states (tools/alert decides what is allowed). Bad usage
// exits 2; an unknown alert or a change its state refuses, 1.
func runAlerts(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 1 && args[1] == "assign" {
		return runAssign(ctx, args, stdout, stderr)
	}
	fs := flag.NewFlagSet("history alerts", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, alertsUsage); fs.PrintDefaults() }
	state := fs.String("state", "", "list only the alerts in this `state`: "+strings.Join(stateNames(), ", "))
	kind := fs.String("kind", "", "list only the alerts of this `kind`: "+strings.Join(kindNames(), ", "))
	benchmark := fs.String("benchmark", "", "list only the alerts of this benchmark (`name`)")
	all := fs.Bool("all", false, "list the fixed alerts too")
	note := fs.String("note", "", "what you know ("+alert.Taking(alert.NoteOrIssue, alert.NoteIfAny)+"): `TEXT`")
	issue := fs.String("issue", "", "the issue that tracks it ("+alert.Taking(alert.NoteOrIssue)+"): its http(s) `URL`")
	reason := fs.String("reason", "", "why it is intended or noise ("+alert.Taking(alert.Reason)+"): `TEXT`")
	by := fs.String("by", "", "who changes the state (`NAME`; default $USER)")
	pos, help, err := parse(fs, args)
	if help || err != nil {
		return err
	}
	if len(pos) == 0 {
		return cli.Usagef("alerts wants a DSN\n%s", alertsUsage)
	}
	action := "list"
	if len(pos) > 1 {
		action = pos[1]
	}
	var id int64
	_, aerr := alert.ParseAction(action)
	switch change := aerr == nil; {
	case action == "list":
		if len(pos) > 2 {
			return cli.Usagef("alerts list takes no argument but the DSN (%q)\n%s", pos[2], alertsUsage)
		}
	case change || action == "show":
		if len(pos) != 3 {
			return cli.Usagef("alerts %s wants one alert ID\n%s", action, alertsUsage)
		}
		if id, err = alertID(action, pos[2]); err != nil {
			return err
		}
	default:
		return cli.Usagef("alerts: unknown action %q: want list, show, %s\n%s", action, strings.Join(actionNames(), ", "), alertsUsage)
	}
	filter := func(alert.Alert) bool { return true }
	if action == "list" {
		if filter, err = listFilter(*state, *kind, *benchmark, *all); err != nil {
			return err
		}
	} else if *state != "" || *kind != "" || *benchmark != "" || *all {
		return cli.Usagef("alerts %s: --state, --kind, --benchmark and --all are list's flags", action)
	}
	change, err := changeOf(action, *note, *issue, *reason, *by)
	if err != nil {
		return err
	}
	d, err := history.Open(ctx, userDSN(pos[0]))
	if err != nil {
		return err
	}
	defer d.Close()
	switch action {
	case "list":
		alerts, err := d.Alerts(ctx)
		if err != nil {
			return err
		}
		return printAlerts(stdout, d.Name(), slices.DeleteFunc(alerts, func(a alert.Alert) bool { return !filter(a) }))
	case "show":
		a, err := d.Alert(ctx, id)
		if err != nil {
			return err
		}
		printAlert(stdout, a)
		return nil
	}
	a, err := d.ChangeAlert(ctx, id, change)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "alert %d is %s: %s\n", a.ID, a.State(), cli.Printable(string(a.Kind)+" "+a.Series.String()))
	return nil
}

// runAssign is `history alerts DSN assign ID NAME`: it assigns the alert
// to NAME ("" for nobody), as the dashboard's assign form does
// (tools/alert decides what is allowed), recorded by --by or the user
// running the command.
func runAssign(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("history alerts assign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, alertsUsage); fs.PrintDefaults() }
	by := fs.String("by", "", "who assigns it (`NAME`; default $USER)")
	pos, help, err := parse(fs, args)
	if help || err != nil {
		return err
	}
	if len(pos) != 4 {
		return cli.Usagef("alerts assign wants one alert ID and the assignee (\"\" for nobody)\n%s", alertsUsage)
	}
	id, err := alertID("assign", pos[2])
	if err != nil {
		return err
	}
	who, err := whoChanges("assign", *by)
	if err != nil {
		return err
	}
	d, err := history.Open(ctx, userDSN(pos[0]))
	if err != nil {
		return err
	}
	defer d.Close()
	a, err := d.AssignAlertSeen(ctx, id, -1, pos[3], who, time.Now().UTC())
	if err != nil {
		return err
	}
	assignee := a.Assignee()
	if assignee == "" {
		assignee = "nobody"
	}
	fmt.Fprintf(stdout, "alert %d is assigned to %s: %s\n", a.ID, cli.Printable(assignee), cli.Printable(string(a.Kind)+" "+a.Series.String()))
	return nil
}

// listFilter selects the alerts list shows, its flags checked.
func listFilter(state, kind, benchmark string, all bool) (func(alert.Alert) bool, error) {
	var st alert.State
	var k alert.Kind
	var err error
	if state != "" {
		if st, err = alert.ParseState(state); err != nil {
			return nil, cli.Usagef("--state: %v", err)
		}
	}
	if kind != "" {
		if k, err = alert.ParseKind(kind); err != nil {
			return nil, cli.Usagef("--kind: %v", err)
		}
	}
	return func(a alert.Alert) bool {
		return (st == "" && (all || a.State().Open()) || a.State() == st) && (k == "" || a.Kind == k) &&
			(benchmark == "" || a.Benchmark == benchmark)
	}, nil
}

// changeOf is the change of state an action asks for, its flags checked
// by tools/alert (Ask.Change), by --by or the user running the command.
func changeOf(action, note, issue, reason, by string) (alert.Change, error) {
	act, err := alert.ParseAction(action)
	if err != nil {
		if note != "" || issue != "" || reason != "" || by != "" {
			return alert.Change{}, cli.Usagef("alerts %s: --note, --issue, --reason and --by change a state (%s)", action, strings.Join(actionNames(), ", "))
		}
		return alert.Change{}, nil
	}
	if by, err = whoChanges(action, by); err != nil {
		return alert.Change{}, err
	}
	c, err := alert.Ask{Action: act, Note: note, Issue: issue, Reason: reason}.Change(alert.Flags, by, time.Now().UTC())
	if err != nil {
		return alert.Change{}, cli.Usagef("alerts %v", err)
	}
	return c, nil
}

// whoChanges is who makes a change: by, else the user running the command.
func whoChanges(action, by string) (string, error) {
	if by == "" {
		by = os.Getenv("USER")
		if u, err := user.Current(); by == "" && err == nil {
			by = u.Username
		}
		if by == "" {
			return "", cli.Usagef("alerts %s: who are you? --by NAME", action)
		}
	}
	return by, nil
}

// printAlerts is list's table: an alert a row, newest first.
func printAlerts(w io.Writer, db string, alerts []alert.Alert) error {
	if len(alerts) == 0 {
		fmt.Fprintf(w, "%s: no alerts\n", db)
		return nil
	}
	slices.Reverse(alerts)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tKIND\tSERIES\tCHANGE\tCOMMITS\tLAST FOUND\tNOTE")
	for _, a := range alerts {
		c := a.Current()
		note := c.Note
		if c.Issue != "" {
			note = strings.TrimSpace(c.Issue + " " + note)
		}
		if c.By != "" {
			note = strings.TrimSpace(note + " (" + c.By + ", " + c.At.Format("2006-01-02") + ")")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.State(), a.Kind, cli.Printable(a.Series.String()),
			cli.Printable(a.ChangeText()), cli.Printable(a.RangeText()), a.LastFound.Format("2006-01-02"), cli.Printable(note))
	}
	return tw.Flush()
}

// printAlert is show's page: everything the alert holds, and its changes.
func printAlert(w io.Writer, a alert.Alert) {
	line := func(key, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-13s %s\n", key+":", cli.Printable(value))
		}
	}
	line("alert", fmt.Sprintf("%d (%s)", a.ID, a.State()))
	line("kind", string(a.Kind))
	line("series", a.Series.String())
	line("environment", a.EnvKey)
	line("change", a.ChangeText())
	line("commits", a.RangeText())
	line("first bad", strings.TrimSpace(a.FirstBad+" "+a.FirstBadSubject))
	line("evidence", a.Evidence)
	line("report", a.Report)
	for _, diff := range a.ProfileDiffs {
		line("profile diff", diff)
	}
	line("found", fmt.Sprintf("%s to %s (commit %s)", a.FirstFound.Format("2006-01-02"), a.LastFound.Format("2006-01-02"), a.LastFoundCommit))
	fmt.Fprintln(w, "history:")
	for i, c := range a.Changes {
		text := fmt.Sprintf("  %s  %-12s by %s", c.At.Format("2006-01-02 15:04Z"), c.State, c.By)
		if a.Assigned(i) {
			who := c.Assignee
			if who == "" {
				who = "nobody"
			}
			text = fmt.Sprintf("  %s  assigned to %s by %s", c.At.Format("2006-01-02 15:04Z"), who, c.By)
		}
		if c.Note != "" {
			text += ": " + c.Note
		}
		if c.Issue != "" {
			text += " " + c.Issue
		}
		fmt.Fprintln(w, cli.Printable(text))
	}
}

func stateNames() []string {
	var names []string
	for _, s := range alert.States {
		names = append(names, string(s))
	}
	return names
}

func kindNames() []string {
	var names []string
	for _, k := range alert.Kinds {
		names = append(names, string(k))
	}
	return names
}

func actionNames() []string {
	var names []string
	for _, a := range alert.Actions {
		names = append(names, string(a))
	}
	return names
}

// alertID is the alert ID arg that action names, refused as a usage
// error unless it is a number history alerts list could show.
func alertID(action, arg string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id < 1 {
		return 0, cli.Usagef("alerts %s: alert ID %q: want a number that history alerts list shows", action, arg)
	}
	return id, nil
}
