<?php
/**
 * Plugin Name:       svc
 * Description:       Your svc community's widgets (events, RSVP, donations, membership applications, members, header, footer) as blocks and shortcodes, with the widget loader added to the pages that use them.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.0
 * Author:            svc
 * License:           GPLv2 or later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       svc
 *
 * @package svc
 */

defined( 'ABSPATH' ) || exit;

const SVC_VERSION     = '0.1.0';
const SVC_PLUGIN_FILE = __FILE__;

require __DIR__ . '/includes/settings.php';
require __DIR__ . '/includes/render.php';
require __DIR__ . '/includes/blocks.php';
