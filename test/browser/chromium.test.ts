import { describeWithChromium, launchChromium } from './chromium';

describeWithChromium('headless Chromium (test harness)', () => {
  test('launches, runs a page script and closes', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setContent('<script>document.title = [typeof WebSocket, typeof fetch].join(",")</script>');
      expect(await page.title()).toBe('function,function');
    } finally {
      await browser.close();
    }
  }, 120_000);
});
