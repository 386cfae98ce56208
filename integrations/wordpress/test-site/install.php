<?php
// Installs a fresh WordPress for one test site, the way the web installer would but without a
// browser or wp-cli (not in Debian 12): run by setup.sh as
//   php install.php <port> <plugin slug or "">
// after it has written /etc/wordpress/config-svc-<port>.php. Reads the database settings from
// that config, so the database it recreates is exactly the one the site will use.

[, $svc_port, $svc_plugin] = $argv + [null, null, ''];
if (!ctype_digit((string) $svc_port)) {
    fwrite(STDERR, "usage: php install.php <port> [plugin]\n");
    exit(2);
}
$_SERVER['HTTP_HOST'] = "127.0.0.1:$svc_port";
$_SERVER['WORDPRESS_CONFIG'] = "svc-$svc_port";
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['SERVER_PORT'] = $svc_port;

// The per-site config only defines constants; reading it first gives the database to recreate
// before WordPress connects to it.
require "/etc/wordpress/config-svc-$svc_port.php";
mysqli_report(MYSQLI_REPORT_OFF);
[$host, $db_port] = array_pad(explode(':', DB_HOST, 2), 2, '3306');
$db = @mysqli_connect($host, DB_USER, DB_PASSWORD, '', (int) $db_port);
if (!$db) {
    fwrite(STDERR, 'MariaDB/MySQL is not reachable at ' . DB_HOST . ' as ' . DB_USER . ': ' . mysqli_connect_error()
        . "\nStart it (service mariadb start) or set SVC_WP_DB_HOST / SVC_WP_DB_USER / SVC_WP_DB_PASSWORD.\n");
    exit(3);
}
$name = DB_NAME;
if (!$db->query("DROP DATABASE IF EXISTS `$name`") || !$db->query("CREATE DATABASE `$name` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")) {
    fwrite(STDERR, "could not recreate database $name: {$db->error}\n");
    exit(3);
}
$db->close();

define('WP_INSTALLING', true);
// wp_install() mails the admin; there is no mail server here, and nobody to read it.
function wp_new_blog_notification() {}
require_once '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';

$users = json_decode(file_get_contents(__DIR__ . '/users.json'), true);
$admin = $users[0];
$result = wp_install('svc test site', $admin['login'], $admin['email'], false, '', wp_slash($admin['password']));
if (is_wp_error($result['user_id'] ?? null)) {
    fwrite(STDERR, "wp_install failed\n");
    exit(4);
}
foreach (array_slice($users, 1) as $user) {
    $id = wp_insert_user([
        'user_login' => $user['login'],
        'user_pass' => $user['password'],
        'user_email' => $user['email'],
        'role' => $user['role'],
        'display_name' => ucfirst($user['login']),
    ]);
    if (is_wp_error($id)) {
        fwrite(STDERR, "user {$user['login']}: {$id->get_error_message()}\n");
        exit(4);
    }
}

// Pretty permalinks, as almost every real site has (the router sends them to index.php).
update_option('permalink_structure', '/%postname%/');
// Gravatar images would be requests to the internet from every page with the admin bar.
update_option('show_avatars', 0);
update_option('timezone_string', 'UTC');
switch_theme('twentytwentythree');
flush_rewrite_rules(false);

if ($svc_plugin !== '') {
    $activated = activate_plugin($svc_plugin);
    if (is_wp_error($activated)) {
        fwrite(STDERR, "could not activate $svc_plugin: {$activated->get_error_message()}\n");
        exit(5);
    }
}
echo "installed WordPress " . get_bloginfo('version') . " at " . home_url('/') . ($svc_plugin ? ", $svc_plugin active" : '') . "\n";
