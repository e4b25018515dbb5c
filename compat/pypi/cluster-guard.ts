// A cluster suite of the PyPI clients needs both the venv (compat/pypi/install.sh) and ZooKeeper.
import { describeCluster } from '../cluster/cluster-util.js';
import { describeWithToolchain } from '../toolchain.js';
import { venvMissing } from './pypi.js';

export function describeToolchainCluster(name: string, options: { timeout: number }, suite: () => void): void {
  describeWithToolchain(name, venvMissing, options, () => describeCluster('with a real ZooKeeper', options, suite));
}
