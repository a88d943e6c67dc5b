import { useEffect, useState } from 'react';
import { Box, Button, Group, Image, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { VoucherBatchCreated } from '@portico/schema';
import { useSessionStore } from '../../state/session-store.js';
import { sheetShowsQr, sheetTerms, voucherCards } from './voucher-sheet-model.js';

/** On paper only the cards: the console's header, menu and buttons are left out. */
const PRINT_STYLE = '.no-print, .mantine-AppShell-header, .mantine-AppShell-navbar { display: none !important; } .mantine-AppShell-main { padding: 0 !important; }';

/** QR images by code; the qrcode library is loaded only when a sheet with QR codes is shown. */
function useQrImages(codes: readonly string[], enabled: boolean): Record<string, string> {
  const [images, setImages] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    void import('qrcode').then(async (qr) => {
      const out: Record<string, string> = {};
      for (const code of codes) out[code] = await qr.toDataURL(code, { margin: 1, width: 160, errorCorrectionLevel: 'M' });
      if (current) setImages(out);
    });
    return () => {
      current = false;
    };
  }, [codes, enabled]);
  return images;
}

/**
 * The printable sheet of a batch just created: one card per code with its serial number, the
 * code grouped in fours, the validity and, with the `qrcode` capability, a QR code. The codes
 * exist only in the creation reply, so this is the one chance to print them.
 */
export function VoucherSheet({ created, onClose }: { created: VoucherBatchCreated; onClose: () => void }) {
  const { t } = useTranslation();
  const capabilities = useSessionStore((s) => s.capabilities);
  const withQr = sheetShowsQr(capabilities);
  const images = useQrImages(created.codes, withQr);
  const cards = voucherCards(created.codes);
  const terms = sheetTerms(created.batch);
  const validity = t('hotspot.voucher.sheetValid', { validity: terms.validity, unit: t(terms.unitKey) });
  const devices = t('hotspot.voucher.sheetUsers', { count: terms.devices ?? t('hotspot.voucher.unlimited') });

  return (
    <Stack data-testid="voucher-sheet">
      <style media="print">{PRINT_STYLE}</style>
      <Group justify="space-between" className="no-print">
        <Text fw={500}>{t('hotspot.msg.voucherCodes', { count: cards.length })}</Text>
        <Group>
          <Button variant="default" onClick={onClose} data-testid="voucher-sheet-close">
            {t('entity.back')}
          </Button>
          <Button onClick={() => window.print()} data-testid="voucher-sheet-print">
            {t('hotspot.voucher.printNow')}
          </Button>
        </Group>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
        {cards.map((card) => (
          <Box key={card.serial} p="sm" style={{ border: '1px dashed var(--mantine-color-gray-5)', breakInside: 'avoid' }} data-testid="voucher-card">
            <Group wrap="nowrap" align="flex-start">
              {withQr && (
                <Box w={96} h={96}>
                  {images[card.qrText] && <Image src={images[card.qrText]} w={96} h={96} alt={card.printed} data-testid="voucher-qr" />}
                </Box>
              )}
              <Stack gap={2}>
                <Title order={5}>{t('hotspot.voucher.sheetTitle')}</Title>
                <Text ff="monospace" fz="lg" fw={700} data-testid="voucher-code">
                  {card.printed}
                </Text>
                <Text fz="xs">{validity}</Text>
                <Text fz="xs">{devices}</Text>
                <Text fz="xs" c="dimmed">
                  {created.batch.name ? `${created.batch.name} · ` : ''}#{card.serial}
                </Text>
              </Stack>
            </Group>
          </Box>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
