import { Title } from '@mantine/core';
import { useMenuTitle } from '../routes/current-route.js';

/** The heading of a routed page; one per page, the one the title test reads. */
export function PageHeading({ title }: { title: string }) {
  return (
    <Title order={3} data-testid="page-title">
      {title}
    </Title>
  );
}

/** The heading of a page the menu leads to: its menu label. */
export function MenuPageHeading() {
  return <PageHeading title={useMenuTitle()} />;
}
