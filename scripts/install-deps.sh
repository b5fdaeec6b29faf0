#!/usr/bin/env bash
# Installs everything convfail needs to build, test and re-execute models on Debian 12.
# Idempotent: packages already present are not reinstalled; run as root.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build ccache clang-format pkg-config git ca-certificates
  clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer, ASan and UBSan (tests/fuzz)
  libcurl4-openssl-dev nlohmann-json3-dev libsqlite3-dev sqlite3 libre2-dev libcli11-dev doctest-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libarchive-dev libcpp-httplib-dev libmicrohttpd-dev libssl-dev
  libcmark-gfm-dev libcmark-gfm-extensions-dev  # Markdown to safe HTML (web/markdown_html)
  curl jq  # the crawler e2e tests read the fake server's log
  parallel  # GNU parallel: the sharded campaign test (tests/e2e/campaign_shard_merge.sh)
  bubblewrap libseccomp-dev  # the sandbox of repro/ (and core_install.sh hides the checkout)
)
if [ "${CONVFAIL_WITH_REPRO:-1}" = 1 ]; then
  # Model re-execution: ONNX backend test data, Node.js for the ONNX Runtime runner, PyTorch,
  # torchvision and torchaudio (architectures only, random weights, for `convfail test --source
  # torchvision|torchaudio|real`; python3-torchtext is left out: 0.14.1 does not import).
  packages+=(libonnx-testdata python3 python3-torch python3-torchvision python3-torchaudio
    python3-onnx python3-numpy)
  # Node.js may come from elsewhere (with its own npm); take Debian's only when there is none.
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi
if [ "${CONVFAIL_WITH_BROWSER:-1}" = 1 ]; then
  # The real-browser test of `convfail serve` (tests/e2e/web_browser.sh): headless Chromium
  # driven by selenium. CONVFAIL_WITH_BROWSER=0 leaves them out (the test then skips).
  packages+=(chromium chromium-driver python3-selenium curl)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ONNX Runtime for Node.js, without its install script (it downloads GPU files and fails offline).
# Installed when missing or when the pin in package.json moved.
ort_pinned() { sed -n 's/.*"onnxruntime-node": *"\([^"]*\)".*/\1/p' exec/runner/package.json; }
ort_installed() {
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
    exec/runner/node_modules/onnxruntime-node/package.json 2>/dev/null | head -1
}
if [ "${CONVFAIL_WITH_REPRO:-1}" = 1 ] && [ -f exec/runner/package.json ] &&
   [ "$(ort_installed)" != "$(ort_pinned)" ]; then
  echo "install-deps: npm install (onnxruntime-node $(ort_pinned)) in exec/runner"
  (cd exec/runner && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
# GitHub's GraphQL schema and validator for tests/e2e/crawler_graphql_schema.sh.
if command -v npm >/dev/null 2>&1 && [ -f tests/graphql_schema/package.json ] &&
   [ ! -d tests/graphql_schema/node_modules/@octokit/graphql-schema ]; then
  echo "install-deps: npm install (@octokit/graphql-schema, graphql) in tests/graphql_schema"
  (cd tests/graphql_schema && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
echo "install-deps: ok"
