import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface PortalLocation {
  pathname: string;
  search: string;
}

export interface NavigationValue {
  location: PortalLocation;
  navigate: (to: string) => void;
}

export const NavigationContext = createContext<NavigationValue>({
  location: { pathname: '/', search: '' },
  navigate: () => undefined,
});

export function useNavigation(): NavigationValue {
  return useContext(NavigationContext);
}

/** One query parameter of the current address. */
export function useQueryParam(name: string): string | null {
  return new URLSearchParams(useNavigation().location.search).get(name);
}

export function currentLocation(): PortalLocation {
  return { pathname: globalThis.location.pathname, search: globalThis.location.search };
}
