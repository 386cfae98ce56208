import { describe, expect, it } from 'vitest';
import { themeDeclarations, themeProperty } from '../../../widgets/lib/theme.ts';

describe('theme tokens', () => {
  it('maps themeConfig keys to --svc-theme-* and the host override to --svc-*', () => {
    expect(themeProperty('primaryBtnBg')).toBe('--svc-theme-primary-btn-bg');
    expect(themeProperty('primaryBtnBg', 'public')).toBe('--svc-primary-btn-bg');
  });

  it('turns a themeConfig into custom properties, skipping empty values', () => {
    expect(themeDeclarations({ brandColor: '#0a7d4f', bodyFont: ' Inter, sans-serif ', cardRadius: '' })).toEqual([
      ['--svc-theme-brand-color', '#0a7d4f'],
      ['--svc-theme-body-font', 'Inter, sans-serif'],
    ]);
    expect(themeDeclarations(null)).toEqual([]);
  });
});

describe('base stylesheet', () => {
  it('reads every themeConfig key, with the host page override first', async () => {
    const { ThemeConfig } = await import('../../../contract/resources.ts');
    const fs = await import('node:fs');
    const css = fs.readFileSync(new URL('../../../widgets/lib/base.css', import.meta.url), 'utf8');
    // The page's property first; the community's inside its fallback, directly or as the light
    // half of a light-dark() pair (the dark half is derived: docs/widgets.md, "Dark pages").
    for (const key of Object.keys(ThemeConfig.shape)) {
      const declaration = new RegExp(
        `var\\(\\s*${themeProperty(key, 'public')},\\s*(?:light-dark\\(\\s*)?var\\(${themeProperty(key)}[,)]`,
      );
      expect(css, key).toMatch(declaration);
    }
  });
});
