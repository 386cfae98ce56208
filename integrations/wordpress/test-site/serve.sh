#!/usr/bin/env bash
# Serves the test site set up by setup.sh (same SVC_WP_PORT / SVC_WP_SITE_DIR) with PHP's
# built-in server, in the foreground. Four workers: the block editor sends requests in parallel,
# and one worker would serialise them (and deadlock on a request that calls back into the site).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
port=${SVC_WP_PORT:-8100}
site_dir=${SVC_WP_SITE_DIR:-/tmp/svc-wp-$port}
[[ -f /etc/wordpress/config-svc-$port.php && -d $site_dir/wp-content ]] \
  || { echo "no test site on port $port: run integrations/wordpress/test-site/setup.sh first" >&2; exit 1; }
export WORDPRESS_CONFIG=svc-$port SVC_WP_CONTENT_DIR=$site_dir/wp-content PHP_CLI_SERVER_WORKERS=${PHP_CLI_SERVER_WORKERS:-4}
# OPcache is off for the CLI by default; on, a WordPress request costs a fraction (files are
# compiled once, shared by the workers).
exec php -q -d display_errors=stderr -d opcache.enable_cli=1 -S "127.0.0.1:$port" -t /usr/share/wordpress "$here/router.php"
