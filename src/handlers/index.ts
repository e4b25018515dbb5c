// Every handler krill serves. The registry rejects duplicates and builds ApiVersions from this list.
import type { Handler } from './registry.js';
import produce from './00-produce.js';
import fetch from './01-fetch.js';
import listOffsets from './02-list-offsets.js';
import metadata from './03-metadata.js';
import findCoordinator from './10-find-coordinator.js';
import apiVersions from './18-api-versions.js';
import createTopics from './19-create-topics.js';
import deleteTopics from './20-delete-topics.js';
import describeCluster from './60-describe-cluster.js';

export const HANDLERS: readonly Handler[] = [
  produce, fetch, listOffsets, metadata, findCoordinator, apiVersions, createTopics, deleteTopics, describeCluster,
];
