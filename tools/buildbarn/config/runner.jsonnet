// bb_runner: runs each command bb_worker gives it, in the action's
// directory under the worker's build directory, with only the environment
// the action declares.
local common = import 'common.libsonnet';

{
  buildDirectoryPath: common.stateDir + '/worker/build',
  grpcServers: [{
    listenPaths: [std.extVar('BB_RUNNER_SOCKET')],
    authenticationPolicy: common.allowAll,
  }],
  // TMPDIR points into the action's own temporary directory.
  setTmpdirEnvironmentVariable: true,
  global: common.global,
}
