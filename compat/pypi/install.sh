#!/usr/bin/env bash
# The PyPI clients' suite (compat/pypi): a virtual environment at compat/pypi/.venv made with pyenv's
# python3 (not Debian's /usr/bin/python3, whose packages the compat/python suites use), holding the exact
# versions of requirements.txt: confluent-kafka 2.x (its wheel bundles librdkafka 2.x) and aiokafka with
# cramjam, which aiokafka uses for its snappy, lz4 and zstd codecs, and prometheus-client, whose text parser
# reads krill's /metrics. Idempotent: an up-to-date venv is kept.
set -euo pipefail
cd "$(dirname "$0")"

if command -v pyenv >/dev/null 2>&1; then
  PY="$(pyenv which python3)"
elif [ -x "${PYENV_ROOT:-$HOME/.pyenv}/shims/python3" ]; then
  PY="${PYENV_ROOT:-$HOME/.pyenv}/shims/python3"
else
  echo "compat/pypi/install.sh: pyenv's python3 not found" >&2
  exit 1
fi

stamp=.venv/requirements.installed
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && cmp -s requirements.txt "$stamp"; then
  exit 0
fi
rm -rf .venv
"$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: -r requirements.txt
.venv/bin/python -c 'import importlib.metadata, confluent_kafka, aiokafka, cramjam, prometheus_client.parser; print("compat/pypi: confluent-kafka", confluent_kafka.__version__, "librdkafka", confluent_kafka.libversion()[0], "aiokafka", aiokafka.__version__, "prometheus-client", importlib.metadata.version("prometheus-client"))'
cp requirements.txt "$stamp"
