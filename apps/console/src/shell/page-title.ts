import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

/** Sets the browser tab title: `<page> · <product>`, or the product name alone. */
export function usePageTitle(title?: string): void {
  const { t } = useTranslation();
  const product = t('common.productName');
  useEffect(() => {
    document.title = title ? `${title} · ${product}` : product;
  }, [title, product]);
}
