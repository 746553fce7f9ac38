package result

import (
	"fmt"
	"os"
	"strings"
)

// Origin is who started the run: a CI build (and which one) or a person at
// a workstation. It decides whether a result may move the lab's shared
// state (the nightly baseline, the results history): only Trusted ones may
// (docs/security.md).
//
// The fields come from the Buildkite agent's environment, which --config=perf
// passes to the benchmark tests (--test_env, .bazelrc). They are the job's
// claim about itself, not a proof: anyone can set them on a workstation.
// What keeps an untrusted job from claiming to be the nightly is that it
// runs on agents without the credentials of the baseline and the history;
// the check here stops the honest mistake, such as ingesting a pull
// request's numbers into main's history.
type Origin struct {
	// CI is "buildkite" in a Buildkite job, "" elsewhere.
	CI string `json:"ci,omitempty"`
	// BuildSource is what started the build: "schedule", "webhook" (a
	// push or a pull request), "ui", "api", "trigger_job".
	BuildSource string `json:"build_source,omitempty"`
	// Repository is the pipeline's repository; Branch the build's branch.
	Repository string `json:"repository,omitempty"`
	Branch     string `json:"branch,omitempty"`
	// PullRequest is the pull request's number, "" when the build is not
	// one; PullRequestRepository is the repository it comes from, a fork's
	// when it is not Repository.
	PullRequest           string `json:"pull_request,omitempty"`
	PullRequestRepository string `json:"pull_request_repository,omitempty"`
	// Pipeline is the pipeline's slug and BuildURL the build's page.
	Pipeline string `json:"pipeline,omitempty"`
	BuildURL string `json:"build_url,omitempty"`
}

// TrustedBranch is the branch whose scheduled builds are trusted.
const TrustedBranch = "main"

// OriginEnv lists the environment variables CaptureOrigin reads; .bazelrc
// passes the same ones to benchmark tests.
var OriginEnv = []string{
	"BUILDKITE",
	"BUILDKITE_SOURCE",
	"BUILDKITE_REPO",
	"BUILDKITE_BRANCH",
	"BUILDKITE_PULL_REQUEST",
	"BUILDKITE_PULL_REQUEST_REPO",
	"BUILDKITE_PIPELINE_SLUG",
	"BUILDKITE_BUILD_URL",
}

// CaptureOrigin reads the run's origin from the environment, through
// getenv (os.Getenv).
func CaptureOrigin(getenv func(string) string) Origin {
	if getenv("BUILDKITE") != "true" {
		return Origin{}
	}
	o := Origin{
		CI:          "buildkite",
		BuildSource: getenv("BUILDKITE_SOURCE"),
		Repository:  getenv("BUILDKITE_REPO"),
		Branch:      getenv("BUILDKITE_BRANCH"),
		Pipeline:    getenv("BUILDKITE_PIPELINE_SLUG"),
		BuildURL:    getenv("BUILDKITE_BUILD_URL"),
	}
	// The agent sets BUILDKITE_PULL_REQUEST to "false" outside pull requests.
	if pr := getenv("BUILDKITE_PULL_REQUEST"); pr != "" && pr != "false" {
		o.PullRequest = pr
		o.PullRequestRepository = getenv("BUILDKITE_PULL_REQUEST_REPO")
	}
	return o
}

// Trusted tells whether the result comes from a scheduled CI build of
// main, the only source that may promote a baseline or enter the history;
// when not, why names what it is instead.
func (o Origin) Trusted() (ok bool, why string) {
	switch {
	case o.CI == "":
		return false, "a run outside CI (a workstation, or a result from before origins were recorded)"
	case o.PullRequest != "":
		from := ""
		if o.PullRequestRepository != "" && o.PullRequestRepository != o.Repository {
			from = " from the fork " + o.PullRequestRepository
		}
		return false, fmt.Sprintf("a %s build of pull request #%s%s", o.CI, o.PullRequest, from)
	case o.BuildSource != "schedule":
		return false, fmt.Sprintf("a %s build started by %q, not by the schedule", o.CI, o.BuildSource)
	case o.Branch != TrustedBranch:
		return false, fmt.Sprintf("a scheduled %s build of branch %q, not %q", o.CI, o.Branch, TrustedBranch)
	}
	return true, ""
}

// String is a one-line description for messages.
func (o Origin) String() string {
	if o.CI == "" {
		return "workstation"
	}
	parts := []string{o.CI, "source=" + o.BuildSource, "branch=" + o.Branch}
	if o.PullRequest != "" {
		parts = append(parts, "pull_request="+o.PullRequest)
		if o.PullRequestRepository != "" {
			parts = append(parts, "from="+o.PullRequestRepository)
		}
	}
	if o.BuildURL != "" {
		parts = append(parts, o.BuildURL)
	}
	return strings.Join(parts, " ")
}

// captureOrigin is CaptureOrigin of this process's environment.
func captureOrigin() Origin { return CaptureOrigin(os.Getenv) }
