<?php
/**
 * Settings → svc: the one option `svc_settings`, its page, and the publishable-key check.
 *
 * A save is kept only when the platform confirms the key: `GET {platform_url}/v1/communities/{tag}/publishable-key`
 * must answer the same key. Otherwise the previous settings stay and an error notice says what
 * was wrong (the platform unreachable, no such community, another key), so the widgets never run
 * with settings the platform refuses.
 *
 * @package svc
 */

defined( 'ABSPATH' ) || exit;

/** The settings with every key present (an unset option reads as empty, theme `auto`). */
function svc_settings() {
	$saved = get_option( 'svc_settings' );
	return array_merge(
		array(
			'platform_url'    => '',
			'community'       => '',
			'publishable_key' => '',
			'theme'           => 'auto',
			'site_url'        => '',
		),
		is_array( $saved ) ? $saved : array()
	);
}

/** The widgets' settings page fields: option key => [label, help]. */
function svc_settings_fields() {
	return array(
		'platform_url'    => array( __( 'Platform URL', 'svc' ), __( 'Where the platform runs, e.g. https://svc.example (no trailing slash needed).', 'svc' ) ),
		'community'       => array( __( 'Community tag', 'svc' ), __( 'Your community\'s tag, e.g. acme.', 'svc' ) ),
		'publishable_key' => array( __( 'Publishable key', 'svc' ), __( 'pk_live_…, from GET {platform}/v1/communities/{tag}/publishable-key. Browser-safe: it only reads public data.', 'svc' ) ),
		'theme'           => array( __( 'Theme', 'svc' ), __( 'Dark draws the widgets light on dark, for a dark theme. Auto and Light show the community\'s own colours.', 'svc' ) ),
	);
}

/**
 * The community's site origin, where the fallback links go: its first domain, else
 * <tag>.<platform host> (the rule the widgets follow, widgets/lib/community.ts).
 *
 * @param string $platform The platform URL.
 * @param string $tag      The community tag.
 */
function svc_site_url( $platform, $tag ) {
	$parts  = wp_parse_url( $platform );
	$port   = isset( $parts['port'] ) ? ':' . $parts['port'] : '';
	$answer = wp_remote_get( $platform . '/api/communities/' . rawurlencode( $tag ), array( 'timeout' => 5 ) );
	$body   = is_wp_error( $answer ) ? null : json_decode( wp_remote_retrieve_body( $answer ), true );
	$domain = is_array( $body ) && isset( $body['domains'][0] ) && is_string( $body['domains'][0] ) ? $body['domains'][0] : '';
	if ( '' !== $domain && preg_match( '/^[a-z0-9.-]+(:\d+)?$/i', $domain ) ) {
		$dev = (bool) preg_match( '/(^|\.)localhost(:\d+)?$|^127\.0\.0\.1(:\d+)?$/', $domain );
		return $dev ? $parts['scheme'] . '://' . $domain . ( false === strpos( $domain, ':' ) ? $port : '' ) : 'https://' . $domain;
	}
	return $parts['scheme'] . '://' . $tag . '.' . $parts['host'] . $port;
}

/**
 * What is wrong with the key for that community on that platform, or null when the platform
 * confirms it.
 *
 * @param array $s Sanitized settings.
 */
function svc_check_key( array $s ) {
	$url    = $s['platform_url'] . '/v1/communities/' . rawurlencode( $s['community'] ) . '/publishable-key';
	$answer = wp_remote_get( $url, array( 'timeout' => 8 ) );
	if ( is_wp_error( $answer ) ) {
		/* translators: 1: the platform URL, 2: the error */
		return sprintf( __( 'The platform at %1$s could not be reached (%2$s). Check the Platform URL.', 'svc' ), $s['platform_url'], $answer->get_error_message() );
	}
	$status = wp_remote_retrieve_response_code( $answer );
	if ( 404 === $status ) {
		/* translators: 1: the community tag, 2: the platform URL */
		return sprintf( __( 'There is no community "%1$s" on %2$s. Check the Community tag.', 'svc' ), $s['community'], $s['platform_url'] );
	}
	$body = json_decode( wp_remote_retrieve_body( $answer ), true );
	if ( 200 !== $status || ! is_array( $body ) || ! isset( $body['publishableKey'] ) ) {
		/* translators: 1: the platform URL, 2: the HTTP status */
		return sprintf( __( '%1$s did not answer as an svc platform (HTTP %2$d). Check the Platform URL.', 'svc' ), $s['platform_url'], $status );
	}
	if ( ! hash_equals( (string) $body['publishableKey'], $s['publishable_key'] ) ) {
		/* translators: %s: the community tag */
		return sprintf( __( 'This publishable key is not the key of community "%s". Copy it again from the platform.', 'svc' ), $s['community'] );
	}
	return null;
}

/**
 * The Settings API's sanitize callback: clean each field, then check the key. On any problem the
 * previous settings are returned unchanged, with an error notice.
 *
 * @param mixed $input The posted `svc_settings` array.
 */
function svc_sanitize_settings( $input ) {
	// WordPress runs this again on what it returned (the first save goes through add_option,
	// which sanitizes once more): a value already checked is not checked, nor announced, twice.
	static $done = array();
	$previous    = get_option( 'svc_settings' );
	$input       = is_array( $input ) ? wp_unslash( $input ) : array();
	$memo        = md5( wp_json_encode( $input ) );
	if ( isset( $done[ $memo ] ) ) {
		return $done[ $memo ];
	}
	// A field posted as an array (svc_settings[community][]=x) is junk, not a PHP warning.
	$field    = function ( $key ) use ( $input ) {
		return isset( $input[ $key ] ) && is_scalar( $input[ $key ] ) ? trim( (string) $input[ $key ] ) : '';
	};
	$given    = $field( 'platform_url' );
	$platform = rtrim( esc_url_raw( $given, array( 'http', 'https' ) ), '/' );
	$s        = array(
		'platform_url'    => $platform,
		'community'       => strtolower( $field( 'community' ) ),
		'publishable_key' => $field( 'publishable_key' ),
		'theme'           => in_array( $field( 'theme' ), array( 'auto', 'light', 'dark' ), true ) ? $field( 'theme' ) : 'auto',
		'site_url'        => '',
	);
	$parts = wp_parse_url( $platform );
	$error = null;
	// esc_url_raw prepends http:// to "ftp.example" or "localhost:3100"; only an address that
	// names its http(s) scheme is taken. Credentials in it would be printed into every page's
	// loader URL, so they are refused too.
	if ( '' === $platform || ! preg_match( '#^https?://#i', $given ) || empty( $parts['host'] ) || isset( $parts['user'] ) || isset( $parts['pass'] ) || isset( $parts['query'] ) || isset( $parts['fragment'] ) ) {
		$error = array( 'platform_url', __( 'The Platform URL must be an http:// or https:// address, e.g. https://svc.example.', 'svc' ) );
	} elseif ( ! preg_match( '/^[a-z0-9][a-z0-9-]{1,63}$/', $s['community'] ) ) {
		$error = array( 'community', __( 'The Community tag is 2 to 64 lowercase letters, digits and hyphens.', 'svc' ) );
	} elseif ( ! preg_match( '/^pk_live_[A-Za-z0-9_-]+$/', $s['publishable_key'] ) ) {
		$error = array( 'publishable_key', __( 'The Publishable key starts with pk_live_ (never use a secret sk_ key on a web page).', 'svc' ) );
	} else {
		$problem = svc_check_key( $s );
		if ( null !== $problem ) {
			$error = array( 'key_check', $problem );
		}
	}
	if ( null !== $error ) {
		// settings_errors() prints the message as HTML: the platform's URL and answer are text.
		add_settings_error( 'svc_settings', 'svc_' . $error[0], esc_html( $error[1] ), 'error' );
		$done[ $memo ] = is_array( $previous ) ? $previous : array();
		return $done[ $memo ];
	}
	$s['site_url'] = svc_site_url( $s['platform_url'], $s['community'] );
	/* translators: %s: the community tag */
	add_settings_error( 'svc_settings', 'svc_saved', esc_html( sprintf( __( 'Settings saved. The platform confirmed the publishable key of community "%s".', 'svc' ), $s['community'] ) ), 'success' );
	$done[ $memo ]                     = $s;
	$done[ md5( wp_json_encode( $s ) ) ] = $s;
	return $s;
}

add_action(
	'admin_init',
	function () {
		register_setting(
			'svc',
			'svc_settings',
			array(
				'type'              => 'array',
				'sanitize_callback' => 'svc_sanitize_settings',
				'default'           => array(),
			)
		);
		add_settings_section( 'svc_main', '', '__return_false', 'svc' );
		foreach ( svc_settings_fields() as $key => $field ) {
			add_settings_field(
				'svc_' . $key,
				$field[0],
				'svc_settings_field',
				'svc',
				'svc_main',
				array(
					'label_for' => 'svc_' . $key,
					'key'       => $key,
					'help'      => $field[1],
				)
			);
		}
	}
);

/**
 * One field of the form.
 *
 * @param array $args From add_settings_field.
 */
function svc_settings_field( array $args ) {
	$key   = $args['key'];
	$value = svc_settings()[ $key ];
	$name  = 'svc_settings[' . $key . ']';
	if ( 'theme' === $key ) {
		printf( '<select id="%s" name="%s" aria-describedby="%s-help">', esc_attr( $args['label_for'] ), esc_attr( $name ), esc_attr( $args['label_for'] ) );
		foreach ( array(
			'auto'  => __( 'Auto', 'svc' ),
			'light' => __( 'Light', 'svc' ),
			'dark'  => __( 'Dark', 'svc' ),
		) as $option => $label ) {
			printf( '<option value="%s"%s>%s</option>', esc_attr( $option ), selected( $value, $option, false ), esc_html( $label ) );
		}
		echo '</select>';
	} else {
		printf(
			'<input type="%s" class="regular-text" id="%s" name="%s" value="%s" aria-describedby="%s-help"%s>',
			'platform_url' === $key ? 'url' : 'text',
			esc_attr( $args['label_for'] ),
			esc_attr( $name ),
			esc_attr( $value ),
			esc_attr( $args['label_for'] ),
			'platform_url' === $key ? '' : ' spellcheck="false" autocomplete="off"'
		);
	}
	printf( '<p class="description" id="%s-help">%s</p>', esc_attr( $args['label_for'] ), esc_html( $args['help'] ) );
}

add_action(
	'admin_menu',
	function () {
		add_options_page( __( 'svc', 'svc' ), __( 'svc', 'svc' ), 'manage_options', 'svc', 'svc_settings_page' );
	}
);

/** Settings → svc. WordPress prints the notices of options-general.php pages itself. */
function svc_settings_page() {
	if ( ! current_user_can( 'manage_options' ) ) {
		return;
	}
	echo '<div class="wrap"><h1>' . esc_html__( 'svc', 'svc' ) . '</h1>';
	echo '<p>' . esc_html__( 'Connect this site to your community. The blocks and shortcodes then render its widgets, and the widget loader is added to the pages that use them.', 'svc' ) . '</p>';
	echo '<form action="options.php" method="post">';
	settings_fields( 'svc' );
	do_settings_sections( 'svc' );
	submit_button();
	echo '</form></div>';
}

add_action(
	'admin_notices',
	function () {
		$screen = get_current_screen();
		if ( ! current_user_can( 'manage_options' ) || ( $screen && 'settings_page_svc' === $screen->id ) ) {
			return;
		}
		if ( '' === svc_settings()['publishable_key'] ) {
			printf(
				'<div class="notice notice-warning"><p>%s <a href="%s">%s</a></p></div>',
				esc_html__( 'svc is not connected to a community yet: its blocks render nothing until it is.', 'svc' ),
				esc_url( admin_url( 'options-general.php?page=svc' ) ),
				esc_html__( 'Settings → svc', 'svc' )
			);
		}
	}
);
