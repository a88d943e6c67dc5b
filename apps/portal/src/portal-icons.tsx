/** @jsxImportSource preact */

/** Small line icons drawn inline (no image requests, nothing for the CSP to allow); decorative only. */

function Icon({ class: className, children }: { class?: string; children: preact.ComponentChildren }) {
  return (
    <svg class={className ? `icon ${className}` : 'icon'} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

export function WifiIcon({ class: className }: { class?: string }) {
  return (
    <Icon class={className}>
      <path d="M2.5 9a14 14 0 0 1 19 0M5.5 12.5a9.5 9.5 0 0 1 13 0M8.7 15.9a5 5 0 0 1 6.6 0" />
      <circle cx="12" cy="19" r="1.3" class="icon-fill" />
    </Icon>
  );
}

export function WifiOffIcon({ class: className }: { class?: string }) {
  return (
    <Icon class={className}>
      <path d="M2.5 9a14 14 0 0 1 6-3.4M13.5 5.1A14 14 0 0 1 21.5 9M5.5 12.5a9.5 9.5 0 0 1 4-2.2M16 10.9a9.5 9.5 0 0 1 2.5 1.6M8.7 15.9a5 5 0 0 1 5-1M3 3l18 18" />
      <circle cx="12" cy="19" r="1.3" class="icon-fill" />
    </Icon>
  );
}

export function AlertIcon({ class: className }: { class?: string }) {
  return (
    <Icon class={className}>
      <circle cx="12" cy="12" r="9.5" />
      <path d="M12 7v6" />
      <circle cx="12" cy="16.5" r="1.2" class="icon-fill" />
    </Icon>
  );
}

export function PhoneIcon({ class: className }: { class?: string }) {
  return (
    <Icon class={className}>
      <path d="M6.6 3.5h2.6l1.3 4.1-2 1.4a11 11 0 0 0 6.5 6.5l1.4-2 4.1 1.3v2.6A2.1 2.1 0 0 1 18.4 20 15 15 0 0 1 4 5.6a2.1 2.1 0 0 1 2.6-2.1z" />
    </Icon>
  );
}
