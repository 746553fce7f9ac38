// bb_scheduler: queues the actions bb_storage forwards and hands them to
// workers that ask for work with a matching instance name and platform.
local common = import 'common.libsonnet';

{
  // Execute calls from bb_storage.
  clientGrpcServers: [common.internalServer([std.extVar('BB_SCHEDULER_CLIENT_ADDRESS')])],
  // Workers' Synchronize calls.
  workerGrpcServers: [common.internalServer([std.extVar('BB_SCHEDULER_WORKER_ADDRESS')])],
  // A web page with the queues, workers and running actions.
  adminHttpServers: [{
    listenAddresses: [std.extVar('BB_SCHEDULER_ADMIN_ADDRESS')],
    authenticationPolicy: common.allowAll,
  }],
  // Links to bb_browser in the web page; there is none here.
  browserUrl: 'http://127.0.0.1/',
  contentAddressableStorage: common.blobstore.contentAddressableStorage,
  maximumMessageSizeBytes: common.maximumMessageSizeBytes,
  global: common.global,
  executeAuthorizer: common.allowAll,
  modifyDrainsAuthorizer: common.allowAll,
  killOperationsAuthorizer: common.allowAll,
  actionRouter: {
    simple: {
      // Bazel 4 puts the platform properties only in the Command, not in
      // the Action: read both.
      platformKeyExtractor: { actionAndCommand: {} },
      // Actions of one Bazel invocation are scheduled fairly against
      // another's.
      invocationKeyExtractors: [
        { correlatedInvocationsId: {} },
        { toolInvocationId: {} },
      ],
      // Actions without a timeout of their own get 30 minutes; a test's
      // --test_timeout can ask for up to 2 hours.
      initialSizeClassAnalyzer: {
        defaultExecutionTimeout: '1800s',
        maximumExecutionTimeout: '7200s',
      },
    },
  },
  // A platform whose workers all left keeps its queue this long, so a
  // restarting worker finds its queued actions still there.
  platformQueueWithNoWorkersTimeout: '900s',
}
