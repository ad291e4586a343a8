/*
 * kernel/uart.c: polled 16550A driver. Register map and divisor latch per the
 * TI/National PC16550D datasheet, section 8 (register descriptions). Interrupts stay off:
 * the console core polls the receiver in its loop.
 */
#include "uart.h"

#include "kernel/x86.h"

#define UART_RBR 0 /* receive buffer (read, DLAB=0) */
#define UART_THR 0 /* transmit holding (write, DLAB=0) */
#define UART_DLL 0 /* divisor latch low (DLAB=1) */
#define UART_IER 1 /* interrupt enable (DLAB=0) */
#define UART_DLM 1 /* divisor latch high (DLAB=1) */
#define UART_FCR 2 /* FIFO control */
#define UART_FCR_ENABLE 0x01
#define UART_FCR_CLEAR_RX 0x02
#define UART_FCR_CLEAR_TX 0x04
#define UART_LCR 3 /* line control */
#define UART_LCR_8N1 0x03
#define UART_LCR_DLAB 0x80
#define UART_MCR 4 /* modem control */
#define UART_MCR_DTR_RTS 0x03
#define UART_LSR 5 /* line status */
#define UART_LSR_DATA_READY 0x01
#define UART_LSR_THR_EMPTY 0x20
#define UART_SCR 7 /* scratch: read back what was written; absent on the 8250 only */

#define UART_CLOCK_HZ 1843200 /* the PC's 1.8432 MHz crystal; divisor = clock / (16 * baud) */
/* At 9600 baud a byte takes ~1 ms; a port that never drains (absent UART) must not hang us. */
#define UART_TX_SPIN_LIMIT 200000

bool uart_present(uint16_t port)
{
    static const uint8_t probe[] = { 0x5A, 0xA5 };
    if (inb(port + UART_LSR) == 0xFF) {
        return false; /* nothing decodes the port: every read is all-ones */
    }
    for (unsigned i = 0; i < sizeof(probe); i++) {
        outb(port + UART_SCR, probe[i]);
        if (inb(port + UART_SCR) != probe[i]) {
            return false;
        }
    }
    return true;
}

void uart_init(uint16_t port, uint32_t baud)
{
    uint16_t divisor = UART_CLOCK_HZ / (16 * baud);

    outb(port + UART_IER, 0);
    outb(port + UART_LCR, UART_LCR_DLAB);
    outb(port + UART_DLL, divisor & 0xFF);
    outb(port + UART_DLM, divisor >> 8);
    outb(port + UART_LCR, UART_LCR_8N1);
    outb(port + UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX);
    outb(port + UART_MCR, UART_MCR_DTR_RTS);
}

void uart_putc(uint16_t port, uint8_t c)
{
    for (unsigned i = 0; i < UART_TX_SPIN_LIMIT; i++) {
        if (inb(port + UART_LSR) & UART_LSR_THR_EMPTY) {
            break;
        }
        cpu_relax();
    }
    outb(port + UART_THR, c);
}

#define UART_FIFO_BYTES 16 /* 16550A transmit FIFO (enabled in uart_init) */

unsigned uart_tx_fifo_room(uint16_t port)
{
    return (inb(port + UART_LSR) & UART_LSR_THR_EMPTY) ? UART_FIFO_BYTES : 0;
}

void uart_putc_nowait(uint16_t port, uint8_t c)
{
    outb(port + UART_THR, c);
}

int uart_getc(uint16_t port)
{
    if (!(inb(port + UART_LSR) & UART_LSR_DATA_READY)) {
        return -1;
    }
    return inb(port + UART_RBR);
}
