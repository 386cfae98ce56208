<?php
/**
 * Deleting the plugin removes its one option.
 *
 * @package svc
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

delete_option( 'svc_settings' );
